#include "passes/fuse_channel_shuffle.h"

#include "ops/internal_ops.h"
#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// The group g when Reshape `split` turns its input [N, C, S...] into [N, g, C/g, S...] with
// static C and g; nullopt otherwise.
std::optional<int64_t> split_groups(const ir::Graph& graph, const ir::Node& split) {
  if (!is_onnx_op(split, "Reshape") || split.outputs.size() != 1) return std::nullopt;
  const ir::ValueId x_id = input_at(split, 0), y_id = output_at(split, 0);
  if (x_id == ir::kNoValue || y_id == ir::kNoValue) return std::nullopt;
  const ir::Value &x = graph.values[size_t(x_id)], &y = graph.values[size_t(y_id)];
  if (!x.shape_known || !y.shape_known || x.shape.rank() < 2 ||
      y.shape.rank() != x.shape.rank() + 1)
    return std::nullopt;
  const Dim &channels = x.shape[1], &groups = y.shape[1], &per_group = y.shape[2];
  if (!channels.is_static() || !groups.is_static() || !per_group.is_static() ||
      groups.value() < 1 || groups.value() * per_group.value() != channels.value() ||
      !(y.shape[0] == x.shape[0]))
    return std::nullopt;
  for (int64_t d = 2; d < x.shape.rank(); ++d)
    if (!(y.shape[d + 1] == x.shape[d])) return std::nullopt;
  return groups.value();
}

// True when `node` is a Transpose swapping axes 1 and 2 of a tensor of `rank`.
bool swaps_axes_1_and_2(const ir::Graph& graph, const ir::Node& node, int64_t rank) {
  if (!is_onnx_op(node, "Transpose") || output_at(node, 0) == ir::kNoValue) return false;
  std::vector<int64_t> swapped;
  for (int64_t d = 0; d < rank; ++d) swapped.push_back(d == 1 ? 2 : d == 2 ? 1 : d);
  return ops::NodeInfo(graph, node, graph.opset).attr_ints("perm", {}) == swapped;
}

// True when Reshape `node` gives back `shape`.
bool reshapes_to(const ir::Graph& graph, const ir::Node& node, const Shape& shape) {
  if (!is_onnx_op(node, "Reshape") || node.outputs.size() != 1) return false;
  const ir::ValueId y = output_at(node, 0);
  return y != ir::kNoValue && graph.values[size_t(y)].shape_known &&
         graph.values[size_t(y)].shape == shape;
}

}  // namespace

size_t fuse_channel_shuffle(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  const std::vector<std::vector<size_t>> readers = value_readers(graph);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n]) continue;
    const std::optional<int64_t> groups = split_groups(graph, graph.nodes[n]);
    if (!groups) continue;
    const ir::ValueId x = graph.nodes[n].inputs[0];
    const Shape& shape = graph.values[size_t(x)].shape;
    const std::optional<size_t> t = sole_reader(graph, readers, graph.nodes[n].outputs[0]);
    if (!t || dead[*t] || !swaps_axes_1_and_2(graph, graph.nodes[*t], shape.rank() + 1)) continue;
    const std::optional<size_t> merge = sole_reader(graph, readers, graph.nodes[*t].outputs[0]);
    if (!merge || dead[*merge] || !reshapes_to(graph, graph.nodes[*merge], shape)) continue;
    ir::Node node;
    node.name = graph.nodes[n].name;
    node.op_type = "ChannelShuffle";
    node.domain = std::string(ops::kStrataDomain);
    node.inputs = {x};
    node.outputs = {graph.nodes[*merge].outputs[0]};
    ir::Attribute group;
    group.kind = ir::Attribute::Kind::kInt;
    group.i = *groups;
    node.attributes["group"] = group;
    replace_chain(graph, {n, *t, *merge}, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
