#include "passes/fold_constants.h"

#include "passes/graph_edit.h"
#include "passes/infer_shapes.h"

namespace strata::passes {

size_t fold_constants(ir::Graph& graph, int64_t max_bytes) {
  std::vector<ops::Meta> metas(graph.values.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const ir::Value& v = graph.values[id];
    if (v.constant || v.shape_known) metas[id] = {v.dtype, v.shape, v.constant};
  }
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    const std::unique_ptr<ops::Op> op = make_op(graph, node);
    std::optional<std::vector<ops::Meta>> out = infer_node(graph, node, *op, metas);
    if (!out) continue;
    const bool computed = fold_node(graph, node, *op, metas, *out, max_bytes);
    for (size_t j = 0; j < node.outputs.size(); ++j) metas[size_t(node.outputs[j])] = (*out)[j];
    if (!computed) continue;
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      ir::Value& v = graph.values[size_t(node.outputs[j])];
      v.constant = (*out)[j].value;
      v.dtype = (*out)[j].dtype;
      v.shape = (*out)[j].shape;
      v.shape_known = true;
    }
    dead[n] = true;
    ++folded;
  }
  erase_nodes(graph, dead);
  return folded;
}

}  // namespace strata::passes
