#include "analyzer/figures.h"

#include <algorithm>

namespace strata::analyzer {

Layout make_layout(const ir::Graph& graph, const EvalResult& eval) {
  Layout layout;
  layout.node_offset.reserve(graph.nodes.size());
  layout.first_output.reserve(graph.nodes.size());
  layout.ranks.reserve(graph.nodes.size() + graph.nodes.size() / 4);
  size_t offset = 0;
  for (const ir::Node& node : graph.nodes) {
    layout.node_offset.push_back(offset);
    offset += kNodeColumns;
    layout.first_output.push_back(layout.ranks.size());
    for (ir::ValueId id : node.outputs) {
      const ops::Meta& m = eval.metas[size_t(id)];
      layout.ranks.push_back(m.present() ? m.shape.rank() : -1);
      offset += size_t(std::max<int64_t>(layout.ranks.back(), 0));
    }
  }
  layout.totals_offset = offset;
  layout.size = offset + kTotalColumns;
  layout.recorded.assign(layout.size, true);
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (eval.nodes[n].folded)
      for (size_t c = 0; c < kNodeColumns; ++c)
        layout.recorded[layout.node_offset[n] + c] = c == kOutputBytes;
  return layout;
}

void Samples::record(const ir::Graph& graph, const EvalResult& eval, const MemoryFigures& memory,
                     const std::vector<BackwardRule>& rules, const Layout& layout, size_t slot) {
  double* const row = data_.get() + slot * figures_;
  auto at = [&](size_t i) -> double& { return row[i]; };
  double totals[kTotalColumns] = {};
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    const NodeEval& e = eval.nodes[n];
    const size_t f = layout.node_offset[n];
    const bool costed = e.state == NodeState::kKnown && e.has_cost;
    double output_bytes = 0;
    for (ir::ValueId id : node.outputs) output_bytes += value_bytes(eval.metas[size_t(id)]);
    at(f + kOutputBytes) = output_bytes;
    size_t dim = f + kNodeColumns;
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const int64_t rank = layout.rank(n, j);
      const ops::Meta& m = eval.metas[size_t(node.outputs[j])];
      const bool fits = m.present() && m.shape.rank() == rank;
      for (int64_t d = 0; d < rank; ++d)
        at(dim++) = fits && m.shape[d].is_static() ? double(m.shape[d].value()) : kUnknown;
    }
    if (!layout.recorded[f + kMacs]) continue;  // folded
    at(f + kMacs) = costed ? e.cost.macs : kUnknown;
    at(f + kFlops) = costed ? e.cost.flops : kUnknown;
    at(f + kBackwardFlops) = costed ? rules[n].flops_factor * e.cost.flops : kUnknown;
    at(f + kBytesRead) = costed ? e.cost.bytes_read : kUnknown;
    at(f + kWorkspaceBytes) = costed ? e.cost.workspace_bytes : kUnknown;
    at(f + kSavedBytes) = memory.saved[n];
    at(f + kLiveAfterBytes) = memory.live_after[n];
    at(f + kAccumulatedSavedBytes) = memory.accumulated_saved[n];
    if (e.folded || !costed) continue;
    totals[kTotalMacs] += e.cost.macs;
    totals[kTotalFlops] += e.cost.flops;
    totals[kTotalBackwardFlops] += rules[n].flops_factor * e.cost.flops;
    totals[kTotalBytesRead] += e.cost.bytes_read;
  }
  totals[kPeak] = memory.peak;
  totals[kArena] = memory.arena;
  totals[kInputBytes] = memory.input_bytes;
  totals[kFoldedBytes] = memory.folded_bytes;
  totals[kSavedTotal] = memory.saved_total;
  for (size_t c = 0; c < kTotalColumns; ++c) at(layout.totals_offset + c) = totals[c];
}

}  // namespace strata::analyzer
