#include "passes/fuse_gelu.h"

#include "passes/graph_edit.h"
#include "passes/match_activation.h"

namespace strata::passes {

size_t fuse_gelu(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || graph.nodes[n].outputs.size() != 1) continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    const std::optional<ActivationMatch> act =
        match_activation(graph, readers, dead, graph.nodes[n].outputs[0]);
    if (!act || act->activation.kind != ops::ActivationKind::kGelu || act->nodes.size() < 2)
      continue;
    ir::Node node;
    node.name = graph.nodes[act->nodes.front()].name;
    node.op_type = "Gelu";
    node.inputs = {graph.nodes[n].outputs[0]};
    node.outputs = {act->output};
    replace_chain(graph, act->nodes, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
