#include "passes/optimize.h"

#include "passes/einsum_as_matmul.h"
#include "passes/fold_batch_norm.h"
#include "passes/fold_constants.h"
#include "passes/fold_conv_affine.h"
#include "passes/fold_pad.h"
#include "passes/fuse_batch_norm.h"
#include "passes/fuse_channel_shuffle.h"
#include "passes/fuse_conv.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_matmul.h"
#include "passes/fuse_qdq.h"
#include "passes/merge_duplicate_nodes.h"
#include "passes/remove_dead_nodes.h"
#include "passes/sink_transposes.h"
#include "passes/spatial_mean_as_pool.h"

namespace strata::passes {

namespace {

// A Gradient node (ai.onnx.preview.training) differentiates the nodes that compute its target as
// the model has them: fusions would hide them behind ops without backward rules, and dead-node
// removal would drop them when the target is not a graph output.
bool differentiates_its_graph(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes)
    if (node.domain == "ai.onnx.preview.training" && node.op_type == "Gradient") return true;
  return false;
}

}  // namespace

std::vector<PassRecord> optimize_graph(ir::Graph& graph) {
  std::vector<PassRecord> records;
  if (differentiates_its_graph(graph)) return records;
  PassRecord qdq{"fuse_qdq", 0, ""};
  qdq.changes = fuse_qdq(graph, &qdq.note);  // before folding: see fuse_qdq.h
  records.push_back(std::move(qdq));
  records.push_back({"fold_constants", fold_constants(graph)});
  records.push_back({"einsum_as_matmul", einsum_as_matmul(graph)});
  records.push_back({"sink_transposes", sink_transposes(graph)});
  records.push_back({"fold_pad", fold_pad(graph)});
  records.push_back({"fold_batch_norm", fold_batch_norm(graph)});
  records.push_back({"fold_conv_affine", fold_conv_affine(graph)});
  records.push_back({"fuse_batch_norm", fuse_batch_norm(graph)});
  records.push_back({"fuse_layer_norm", fuse_layer_norm(graph)});
  records.push_back({"fuse_conv", fuse_conv(graph)});
  records.push_back({"fuse_matmul", fuse_matmul(graph)});
  records.push_back({"fuse_gelu", fuse_gelu(graph)});
  records.push_back({"fuse_channel_shuffle", fuse_channel_shuffle(graph)});
  records.push_back({"spatial_mean_as_pool", spatial_mean_as_pool(graph)});
  records.push_back({"merge_duplicate_nodes", merge_duplicate_nodes(graph)});
  records.push_back({"remove_dead_nodes", remove_dead_nodes(graph)});
  return records;
}

}  // namespace strata::passes
