#include "passes/remove_dead_nodes.h"

#include "passes/graph_edit.h"

namespace strata::passes {

size_t remove_dead_nodes(ir::Graph& graph) {
  std::vector<bool> live_value(graph.values.size(), false);
  for (ir::ValueId id : graph.outputs) live_value[size_t(id)] = true;
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t removed = 0;
  // Nodes are in topological order: walking back, a node's readers are decided before it.
  for (size_t n = graph.nodes.size(); n-- > 0;) {
    const ir::Node& node = graph.nodes[n];
    bool live = false;
    for (ir::ValueId id : node.outputs)
      if (id != ir::kNoValue && live_value[size_t(id)]) live = true;
    if (!live) {
      dead[n] = true;
      ++removed;
      continue;
    }
    for (ir::ValueId id : node.inputs)
      if (id != ir::kNoValue) live_value[size_t(id)] = true;
  }
  erase_nodes(graph, dead);
  return removed;
}

}  // namespace strata::passes
