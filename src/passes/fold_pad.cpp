#include "passes/fold_pad.h"

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// The per-axis pads (begins then ends) of a zero, constant-mode Pad over every axis, or nullopt.
std::optional<std::vector<int64_t>> zero_pads(const ir::Graph& graph, const ir::Node& pad) {
  const ops::NodeInfo info(graph, pad, graph.opset);
  if (info.attr_string("mode", "constant") != "constant" || pad.outputs.size() != 1)
    return std::nullopt;
  if (graph.opset < 11) {
    if (info.attr_float("value", 0.0f) != 0.0f) return std::nullopt;
    return info.attr_ints("pads");
  }
  if (pad.inputs.size() < 2 || pad.inputs.size() > 3) return std::nullopt;  // no axes input
  const Tensor* pads = constant_of(graph, pad.inputs[1]);
  if (!pads || !is_integer(pads->dtype())) return std::nullopt;
  if (pad.inputs.size() == 3 && pad.inputs[2] != ir::kNoValue) {
    const std::optional<double> value = scalar_constant(graph, pad.inputs[2]);
    if (!value || *value != 0) return std::nullopt;
  }
  return pads->to_int64();
}

}  // namespace

size_t fold_pad(ir::Graph& graph) {
  const std::vector<std::vector<size_t>> readers = value_readers(graph);
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& pad = graph.nodes[n];
    // An input or output named "" (unused or omitted, as ONNX allows) has no value to look at.
    if (!is_onnx_op(pad, "Pad") || pad.inputs.empty() || pad.inputs[0] == ir::kNoValue ||
        pad.outputs.size() != 1 || pad.outputs[0] == ir::kNoValue)
      continue;
    const ir::Value& x = graph.values[size_t(pad.inputs[0])];
    const std::optional<size_t> reader = sole_reader(graph, readers, pad.outputs[0]);
    const std::optional<std::vector<int64_t>> pads = zero_pads(graph, pad);
    if (!reader || !pads || !x.shape_known || x.shape.rank() < 3 ||
        int64_t(pads->size()) != 2 * x.shape.rank())
      continue;
    const int64_t rank = x.shape.rank(), spatial = rank - 2;
    bool batch_or_channels = false, negative = false;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t begin = (*pads)[size_t(d)], end = (*pads)[size_t(d + rank)];
      if (d < 2 && (begin != 0 || end != 0)) batch_or_channels = true;
      if (begin < 0 || end < 0) negative = true;
    }
    if (batch_or_channels || negative) continue;
    ir::Node& op = graph.nodes[*reader];
    const bool conv = is_onnx_op(op, "Conv"), pool = is_onnx_op(op, "AveragePool");
    if (!(conv || pool) || op.inputs.empty() || op.inputs[0] != pad.outputs[0]) continue;
    const ops::NodeInfo info(graph, op, graph.opset);
    if (info.attr_string("auto_pad", "NOTSET") != "NOTSET") continue;
    std::vector<int64_t> own = info.attr_ints("pads", std::vector<int64_t>(size_t(2 * spatial), 0));
    if (int64_t(own.size()) != 2 * spatial) continue;
    bool own_padding = false;
    for (int64_t v : own) own_padding |= v != 0;
    // An average pool that excludes its own padding from the count cannot take counted zeros.
    if (pool && own_padding && info.attr_int("count_include_pad", 0) == 0) continue;
    for (int64_t d = 0; d < spatial; ++d) {
      own[size_t(d)] += (*pads)[size_t(d + 2)];
      own[size_t(d + spatial)] += (*pads)[size_t(d + 2 + rank)];
    }
    ir::Attribute pads_attr;
    pads_attr.kind = ir::Attribute::Kind::kInts;
    pads_attr.ints = own;
    op.attributes["pads"] = pads_attr;
    if (pool) {
      ir::Attribute count;
      count.kind = ir::Attribute::Kind::kInt;
      count.i = 1;
      op.attributes["count_include_pad"] = count;
    }
    std::vector<std::string> from = origins(pad);
    append_origins(from, {&op});
    op.fused_from = std::move(from);
    op.inputs[0] = pad.inputs[0];
    dead[n] = true;
    ++folded;
  }
  erase_nodes(graph, dead);
  return folded;
}

}  // namespace strata::passes
