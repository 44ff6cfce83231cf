#include "analyzer/memory.h"

#include <algorithm>
#include <cmath>

#include "planner/planner.h"

namespace strata::analyzer {

namespace {
constexpr size_t kNone = size_t(-1);
}  // namespace

double value_bytes(const ops::Meta& meta) {
  if (!meta.present()) return kUnknown;
  double n = double(dtype_size(meta.dtype));
  for (const Dim& d : meta.shape.dims()) {
    if (!d.is_static()) return kUnknown;
    n *= double(d.value());
  }
  return n;
}

Liveness::Liveness(const ir::Graph& graph, const EvalResult& eval,
                   const std::vector<BackwardRule>& rules)
    : graph_(graph) {
  const size_t num_nodes = graph.nodes.size();
  // Execution steps: every node not computed ahead of time (unknown ones run at run time).
  step_of_.assign(num_nodes, -1);
  for (size_t n = 0; n < num_nodes; ++n)
    if (!eval.nodes[n].folded) step_of_[n] = steps_++;

  // Graph inputs live from the start, node outputs from their step, each to its last reader;
  // graph outputs to the end.
  activation_of_.assign(graph.values.size(), kNone);
  auto add = [&](ir::ValueId id, int64_t step, bool input) {
    activation_of_[size_t(id)] = activations_.size();
    activations_.push_back({id, step, step, input});
  };
  for (ir::ValueId id : graph.inputs) add(id, 0, true);
  for (size_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes[n];
    if (step_of_[n] < 0) {
      folded_outputs_.insert(folded_outputs_.end(), node.outputs.begin(), node.outputs.end());
      continue;
    }
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue && activation_of_[size_t(id)] != kNone)
        activations_[activation_of_[size_t(id)]].last = step_of_[n];
    for (ir::ValueId id : node.outputs) add(id, step_of_[n], false);
  }
  for (ir::ValueId id : graph.outputs)
    if (activation_of_[size_t(id)] != kNone) activations_[activation_of_[size_t(id)]].last = steps_;

  // What each node's backward pass reads, by its rule (parameters and constants excluded).
  std::vector<size_t> kept;
  for (size_t n = 0; n < num_nodes; ++n) {
    saved_begin_.push_back(saved_.size());
    if (step_of_[n] < 0) continue;
    const ir::Node& node = graph.nodes[n];
    const Saves saves = rules[n].saves;
    kept.clear();
    if (saves == Saves::kOutputs) {
      for (ir::ValueId id : node.outputs) kept.push_back(activation_of_[size_t(id)]);
    } else if (saves != Saves::kNothing) {
      for (ir::ValueId id : node.inputs) {
        if (id == ir::kNoValue || activation_of_[size_t(id)] == kNone) continue;
        const DType t = eval.metas[size_t(id)].dtype;
        if (saves == Saves::kIndexInputs && t != DType::kUndefined && is_float(t)) continue;
        kept.push_back(activation_of_[size_t(id)]);
      }
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    saved_.insert(saved_.end(), kept.begin(), kept.end());
  }
  saved_begin_.push_back(saved_.size());
}

void Liveness::figures(const EvalResult& eval, bool with_arena, MemoryFigures& out) {
  const size_t num_nodes = graph_.nodes.size();
  out.input_bytes = out.folded_bytes = 0;
  for (ir::ValueId id : folded_outputs_) out.folded_bytes += value_bytes(eval.metas[size_t(id)]);
  bytes_.resize(activations_.size());
  for (size_t a = 0; a < activations_.size(); ++a) {
    bytes_[a] = value_bytes(eval.metas[size_t(activations_[a].id)]);
    if (activations_[a].graph_input) out.input_bytes += bytes_[a];
  }

  // Sweeps over steps: live after step s holds first <= s < last; live during s holds
  // first <= s <= last. Unknown sizes are counted apart so that they poison only their steps.
  const size_t slots = size_t(steps_) + 2;
  after_.assign(slots, 0);
  during_.assign(slots, 0);
  unknown_after_.assign(slots, 0);
  unknown_during_.assign(slots, 0);
  std::vector<planner::BufferRequest> requests;
  bool arena_known = true;
  for (size_t a = 0; a < activations_.size(); ++a) {
    const Activation& v = activations_[a];
    const bool unknown = std::isnan(bytes_[a]);
    const double b = unknown ? 0 : bytes_[a];
    if (v.last > v.first) {
      after_[size_t(v.first)] += b;
      after_[size_t(v.last)] -= b;
      unknown_after_[size_t(v.first)] += unknown;
      unknown_after_[size_t(v.last)] -= unknown;
    }
    during_[size_t(v.first)] += b;
    during_[size_t(v.last) + 1] -= b;
    unknown_during_[size_t(v.first)] += unknown;
    unknown_during_[size_t(v.last) + 1] -= unknown;
    if (with_arena && !v.graph_input) {
      arena_known &= !unknown;
      requests.push_back({v.first, v.last, unknown ? 0 : int64_t(b)});
    }
  }
  out.live_after.assign(num_nodes, 0);
  double live = 0, live_now = 0, previous_live = out.input_bytes;
  int unknown_live = 0, unknown_now = 0;
  bool peak_unknown = false;
  out.peak = 0;
  for (size_t n = 0; n < num_nodes; ++n) {
    const int64_t s = step_of_[n];
    if (s >= 0) {
      live += after_[size_t(s)];
      unknown_live += unknown_after_[size_t(s)];
      previous_live = unknown_live > 0 ? kUnknown : live;
      live_now += during_[size_t(s)];
      unknown_now += unknown_during_[size_t(s)];
      peak_unknown |= unknown_now > 0;
      out.peak = std::max(out.peak, live_now);
    }
    out.live_after[n] = previous_live;  // folded nodes repeat the value before them
  }
  if (steps_ == 0) out.peak = out.input_bytes;
  if (peak_unknown) out.peak = kUnknown;
  out.arena =
      !with_arena || !arena_known ? kUnknown : double(planner::plan_buffers(requests).arena_bytes);

  // The backward pass's saved tensors, each counted once in the running total.
  out.saved.assign(num_nodes, 0);
  out.accumulated_saved.assign(num_nodes, 0);
  seen_.assign(activations_.size(), false);
  double accumulated = 0;
  for (size_t n = 0; n < num_nodes; ++n) {
    for (size_t i = saved_begin_[n]; i < saved_begin_[n + 1]; ++i) {
      const size_t a = saved_[i];
      out.saved[n] += bytes_[a];
      if (!seen_[a]) {
        seen_[a] = true;
        accumulated += bytes_[a];
      }
    }
    out.accumulated_saved[n] = accumulated;
  }
  out.saved_total = accumulated;
}

}  // namespace strata::analyzer
