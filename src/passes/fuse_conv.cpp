#include "passes/fuse_conv.h"

#include "ops/fused_conv.h"
#include "ops/internal_ops.h"
#include "passes/graph_edit.h"
#include "passes/match_activation.h"

namespace strata::passes {

namespace {

// An addition of two tensors: Add (from opset 7: earlier ones broadcast by attribute), or Sum of
// two inputs (Caffe2's exports write residuals so: light_resnet50's 16).
bool is_two_input_add(const ir::Graph& graph, const ir::Node& node) {
  return (is_onnx_op(node, "Add") && graph.opset >= 7) ||
         (is_onnx_op(node, "Sum") && node.inputs.size() == 2);
}

}  // namespace

size_t fuse_conv(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || !is_onnx_op(graph.nodes[n], "Conv") || graph.nodes[n].outputs.size() != 1)
      continue;
    // Readers change with every fusion: recompute them (graphs are small next to their weights).
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    const ir::Node& conv = graph.nodes[n];
    std::vector<size_t> chain = {n};
    ir::ValueId out = conv.outputs[0];
    ir::ValueId residual = ir::kNoValue;
    const std::optional<size_t> add = sole_reader(graph, readers, out);
    if (add && !dead[*add] && is_two_input_add(graph, graph.nodes[*add])) {
      const std::optional<ir::ValueId> z = other_input(graph.nodes[*add], out);
      const ir::Value& zv = graph.values[size_t(z.value_or(0))];
      const ir::Value& ov = graph.values[size_t(out)];
      if (z && zv.shape_known && ov.shape_known && zv.dtype == ov.dtype && zv.shape == ov.shape &&
          output_at(graph.nodes[*add], 0) != ir::kNoValue) {
        residual = *z;
        chain.push_back(*add);
        out = output_at(graph.nodes[*add], 0);
      }
    }
    const std::optional<ActivationMatch> act = match_activation(graph, readers, dead, out);
    if (act) {
      chain.insert(chain.end(), act->nodes.begin(), act->nodes.end());
      out = act->output;
    }
    if (chain.size() == 1) continue;

    ir::Node node;
    node.name = conv.name;
    node.op_type = "FusedConv";
    node.domain = std::string(ops::kStrataDomain);
    node.attributes = conv.attributes;
    ops::set_activation(node, act ? act->activation : ops::Activation{});
    node.inputs = conv.inputs;
    node.inputs.resize(3, ir::kNoValue);
    if (residual != ir::kNoValue) node.inputs.push_back(residual);
    node.outputs = {out};
    replace_chain(graph, chain, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
