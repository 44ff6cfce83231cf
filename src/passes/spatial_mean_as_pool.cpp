#include "passes/spatial_mean_as_pool.h"

#include <algorithm>

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// The axes a ReduceMean reduces, normalized and sorted, when they are known before running
// (the attribute before opset 18, a constant input from it); nullopt otherwise, or when it
// reduces nothing or everything by omission.
std::optional<std::vector<int64_t>> reduced_axes(const ir::Graph& graph, const ir::Node& node,
                                                 int64_t rank) {
  std::vector<int64_t> axes;
  if (graph.opset < 18) {
    axes = ops::NodeInfo(graph, node, graph.opset).attr_ints("axes", {});
  } else {
    const Tensor* t = node.inputs.size() > 1 ? constant_of(graph, node.inputs[1]) : nullptr;
    if (!t || (t->dtype() != DType::kI64 && t->dtype() != DType::kI32)) return std::nullopt;
    axes = t->to_int64();
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;  // the op's to refuse, naming the node
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  if (axes.empty()) return std::nullopt;
  return axes;
}

// True when `node` is a ReduceMean over axes 2.. of a float tensor of rank 3 or more.
bool is_spatial_mean(const ir::Graph& graph, const ir::Node& node) {
  if (!is_onnx_op(node, "ReduceMean") || node.outputs.size() != 1 ||
      output_at(node, 0) == ir::kNoValue || input_at(node, 0) == ir::kNoValue)
    return false;
  const ir::Value& x = graph.values[size_t(node.inputs[0])];
  if (!x.shape_known || x.shape.rank() < 3 || !is_float(x.dtype)) return false;
  const std::optional<std::vector<int64_t>> axes = reduced_axes(graph, node, x.shape.rank());
  if (!axes || int64_t(axes->size()) != x.shape.rank() - 2) return false;
  for (size_t i = 0; i < axes->size(); ++i)
    if ((*axes)[i] != int64_t(i) + 2) return false;
  return true;
}

}  // namespace

size_t spatial_mean_as_pool(ir::Graph& graph) {
  size_t rewritten = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!is_spatial_mean(graph, graph.nodes[n])) continue;
    ir::Node& mean = graph.nodes[n];
    const bool keepdims = ops::NodeInfo(graph, mean, graph.opset).attr_int("keepdims", 1) != 0;
    const std::string name = mean.name;
    ir::Node pool;
    pool.name = name;
    pool.op_type = "GlobalAveragePool";
    pool.inputs = {mean.inputs[0]};
    pool.fused_from = origins(mean);
    if (keepdims) {
      pool.outputs = {mean.outputs[0]};
      graph.nodes[n] = std::move(pool);
      ++rewritten;
      continue;
    }
    // [N, C, 1, ...] from the pool, then Flatten to the [N, C] the ReduceMean wrote.
    const ir::ValueId y = mean.outputs[0];
    ir::Value pooled = graph.values[size_t(mean.inputs[0])];
    pooled.name = graph.values[size_t(y)].name + ".pooled";
    for (int64_t d = 2; d < pooled.shape.rank(); ++d) pooled.shape[d] = Dim(1);
    pooled.constant = nullptr;
    pooled.is_initializer = pooled.is_graph_input = pooled.is_graph_output = false;
    pooled.is_captured = false;
    graph.values.push_back(pooled);
    pool.outputs = {ir::ValueId(graph.values.size() - 1)};
    ir::Node flatten;
    flatten.name = name + ".flatten";
    flatten.op_type = "Flatten";
    flatten.inputs = pool.outputs;
    flatten.outputs = {y};
    flatten.fused_from = pool.fused_from;
    graph.nodes[n] = std::move(pool);
    graph.nodes.insert(graph.nodes.begin() + int64_t(n) + 1, std::move(flatten));
    ++n;
    ++rewritten;
  }
  if (rewritten) erase_nodes(graph, std::vector<bool>(graph.nodes.size(), false));
  return rewritten;
}

}  // namespace strata::passes
