#include "passes/fold_constants.h"

#include "passes/graph_edit.h"
#include "passes/infer_shapes.h"

namespace strata::passes {

size_t fold_constants(ir::Graph& graph, int64_t max_bytes) {
  std::vector<ops::Meta> metas(graph.values.size());
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const ir::Value& v = graph.values[id];
    if (v.constant) metas[id] = {v.dtype, v.shape, v.constant};
  }
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    bool all_constant = true;
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue && !metas[size_t(id)].value) all_constant = false;
    if (!all_constant) continue;
    const std::unique_ptr<ops::Op> op = make_op(graph, node);
    std::optional<std::vector<ops::Meta>> out = infer_node(graph, node, *op, metas);
    if (!out || !fold_node(graph, node, *op, metas, *out, max_bytes)) continue;
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const size_t id = size_t(node.outputs[j]);
      metas[id] = (*out)[j];
      ir::Value& v = graph.values[id];
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
