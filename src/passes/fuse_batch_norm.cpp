#include "passes/fuse_batch_norm.h"

#include "ops/internal_ops.h"
#include "passes/graph_edit.h"
#include "passes/match_activation.h"

namespace strata::passes {

size_t fuse_batch_norm(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& norm = graph.nodes[n];
    if (dead[n] || !is_onnx_op(norm, "BatchNormalization") || norm.outputs.empty()) continue;
    bool statistics = false;  // training-mode or old opsets' extra outputs wanted
    for (size_t j = 1; j < norm.outputs.size(); ++j) statistics |= norm.outputs[j] != ir::kNoValue;
    if (statistics) continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    const std::optional<ActivationMatch> act =
        match_activation(graph, readers, dead, norm.outputs[0]);
    if (!act) continue;
    ir::Node node;
    node.name = norm.name;
    node.op_type = "FusedBatchNorm";
    node.domain = std::string(ops::kStrataDomain);
    node.attributes = norm.attributes;
    ops::set_activation(node, act->activation);
    node.inputs = norm.inputs;
    node.outputs = {act->output};
    std::vector<size_t> chain = {n};
    chain.insert(chain.end(), act->nodes.begin(), act->nodes.end());
    replace_chain(graph, chain, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
