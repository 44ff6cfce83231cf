#include "passes/fuse_matmul.h"

#include "ops/fused_matmul.h"
#include "ops/internal_ops.h"
#include "passes/graph_edit.h"
#include "passes/match_activation.h"

namespace strata::passes {

namespace {

// The live Add reading `out` alone, and its other operand when that broadcasts to `out` without
// growing it and is constant (`want_constant`) or not.
std::optional<std::pair<size_t, ir::ValueId>> match_add(
    const ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, ir::ValueId out, bool want_constant) {
  const std::optional<size_t> add = sole_reader(graph, readers, out);
  if (!add || dead[*add] || !is_onnx_op(graph.nodes[*add], "Add") ||
      output_at(graph.nodes[*add], 0) == ir::kNoValue)
    return std::nullopt;
  const std::optional<ir::ValueId> other = other_input(graph.nodes[*add], out);
  if (!other) return std::nullopt;
  const ir::Value& v = graph.values[size_t(*other)];
  if ((v.constant != nullptr) != want_constant) return std::nullopt;
  if (v.dtype != graph.values[size_t(out)].dtype ||
      !broadcasts_without_growing(v, graph.values[size_t(out)]))
    return std::nullopt;
  return std::make_pair(*add, *other);
}

bool all_zeros(const Tensor& t) {
  for (double v : t.to_double())
    if (v != 0) return false;
  return true;
}

}  // namespace

size_t fuse_matmul(ir::Graph& graph) {
  if (graph.opset < 7) return 0;  // earlier Add/Mul/Div broadcast by attribute
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || !is_onnx_op(graph.nodes[n], "MatMul") || graph.nodes[n].outputs.empty() ||
        graph.nodes[n].outputs[0] == ir::kNoValue)
      continue;
    const ir::Value& product = graph.values[size_t(graph.nodes[n].outputs[0])];
    if (!is_float(product.dtype) || !product.shape_known) continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    std::vector<size_t> chain = {n};
    ir::ValueId out = graph.nodes[n].outputs[0];
    float alpha = 1;
    // A scale: Mul by a constant scalar (either side), or Div by one.
    if (const std::optional<size_t> s = sole_reader(graph, readers, out); s && !dead[*s]) {
      const ir::Node& node = graph.nodes[*s];
      const bool mul = is_onnx_op(node, "Mul"), div = is_onnx_op(node, "Div");
      const std::optional<ir::ValueId> other = other_input(node, out);
      const std::optional<double> c = other ? scalar_constant(graph, *other) : std::nullopt;
      const bool ok_shape =
          other && broadcasts_without_growing(graph.values[size_t(*other)], product);
      if (c && ok_shape && (mul || (div && node.inputs[0] == out && *c != 0)) &&
          output_at(node, 0) != ir::kNoValue) {
        alpha = float(mul ? *c : 1 / *c);
        chain.push_back(*s);
        out = node.outputs[0];
      }
    }
    ir::ValueId bias = ir::kNoValue, residual = ir::kNoValue;
    if (auto add = match_add(graph, readers, dead, out, true)) {
      // torch.baddbmm's exports add a constant of zeros the size of the product: absorbed, not
      // read (it would double the bytes the product writes).
      if (!all_zeros(*constant_of(graph, add->second))) bias = add->second;
      chain.push_back(add->first);
      out = graph.nodes[add->first].outputs[0];
    }
    if (auto add = match_add(graph, readers, dead, out, false)) {
      residual = add->second;
      chain.push_back(add->first);
      out = graph.nodes[add->first].outputs[0];
    }
    const std::optional<ActivationMatch> act = match_activation(graph, readers, dead, out);
    if (act) {
      chain.insert(chain.end(), act->nodes.begin(), act->nodes.end());
      out = act->output;
    }
    if (chain.size() == 1) continue;

    const ir::Node& matmul = graph.nodes[n];
    ir::Node node;
    node.name = matmul.name;
    node.op_type = "FusedMatMul";
    node.domain = std::string(ops::kStrataDomain);
    ir::Attribute alpha_attr;
    alpha_attr.kind = ir::Attribute::Kind::kFloat;
    alpha_attr.f = alpha;
    node.attributes["alpha"] = alpha_attr;
    ops::set_activation(node, act ? act->activation : ops::Activation{});
    node.inputs = {matmul.inputs[0], matmul.inputs[1], bias};
    if (residual != ir::kNoValue) node.inputs.push_back(residual);
    node.outputs = {out};
    replace_chain(graph, chain, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
