#include "passes/match_activation.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

using ops::ActivationKind;

float attr_float(const ir::Graph& graph, const ir::Node& node, const char* name, float fallback) {
  return ops::NodeInfo(graph, node, graph.opset).attr_float(name, fallback);
}

// A single node computing an activation of its first input.
std::optional<ops::Activation> single_node_activation(const ir::Graph& graph,
                                                      const ir::Node& node) {
  using A = ops::Activation;
  if (!node.domain.empty() && node.domain != "ai.onnx") return std::nullopt;
  const std::string& t = node.op_type;
  if (t == "Relu") return A{ActivationKind::kRelu};
  if (t == "Sigmoid") return A{ActivationKind::kSigmoid};
  if (t == "Tanh") return A{ActivationKind::kTanh};
  if (t == "HardSwish") return A{ActivationKind::kHardSwish};
  if (t == "LeakyRelu")
    return A{ActivationKind::kLeakyRelu, attr_float(graph, node, "alpha", 0.01f)};
  if (t == "Elu") return A{ActivationKind::kElu, attr_float(graph, node, "alpha", 1.0f)};
  if (t == "HardSigmoid")
    return A{ActivationKind::kHardSigmoid, attr_float(graph, node, "alpha", 0.2f),
             attr_float(graph, node, "beta", 0.5f)};
  if (t == "Gelu") {
    const std::string approximate =
        ops::NodeInfo(graph, node, graph.opset).attr_string("approximate", "none");
    if (approximate == "none") return A{ActivationKind::kGelu};
    if (approximate == "tanh") return A{ActivationKind::kGeluTanh};
    return std::nullopt;
  }
  if (t == "Clip") {
    float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
    if (graph.opset < 11) {
      lo = attr_float(graph, node, "min", lo);
      hi = attr_float(graph, node, "max", hi);
    } else {
      for (size_t i = 1; i < node.inputs.size(); ++i) {
        if (node.inputs[i] == ir::kNoValue) continue;
        const std::optional<double> bound = scalar_constant(graph, node.inputs[i]);
        if (!bound) return std::nullopt;  // bounds known only while running
        (i == 1 ? lo : hi) = float(*bound);
      }
    }
    if (lo > hi) return std::nullopt;
    return A{ActivationKind::kClip, lo, hi};
  }
  return std::nullopt;
}

bool near(std::optional<double> v, double want) {
  return v && std::abs(*v - want) <= 1e-6 * std::abs(want);
}

// The constant scalar a two-input node combines `value` with.
std::optional<double> other_scalar(const ir::Graph& graph, const ir::Node& node,
                                   ir::ValueId value) {
  const std::optional<ir::ValueId> other = other_input(node, value);
  if (!other) return std::nullopt;
  return scalar_constant(graph, *other);
}

// The one live node reading `value` with op type `op_type`, when it is the value's sole reader.
std::optional<size_t> next(const ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
                           const std::vector<bool>& dead, ir::ValueId value, const char* op_type) {
  const std::optional<size_t> n = sole_reader(graph, readers, value);
  if (!n || dead[*n] || !is_onnx_op(graph.nodes[*n], op_type) ||
      output_at(graph.nodes[*n], 0) == ir::kNoValue)
    return std::nullopt;
  return n;
}

// x * Sigmoid(x) (SiLU) and x * HardSigmoid(x) with alpha 1/6, beta 1/2 (hard-swish, as torch
// exports it before opset 14): `value` read by exactly the gate and a Mul of it with the gate's
// output.
std::optional<ActivationMatch> match_gated(const ir::Graph& graph,
                                           const std::vector<std::vector<size_t>>& readers,
                                           const std::vector<bool>& dead, ir::ValueId value) {
  const std::vector<size_t>& r = readers[size_t(value)];
  if (r.size() != 2 || graph.values[size_t(value)].is_graph_output) return std::nullopt;
  for (int first = 0; first < 2; ++first) {
    const size_t s = r[size_t(first)], m = r[size_t(1 - first)];
    if (dead[s] || dead[m]) continue;
    const ir::Node& gate = graph.nodes[s];
    ActivationKind kind;
    if (is_onnx_op(gate, "Sigmoid")) {
      kind = ActivationKind::kSilu;
    } else if (is_onnx_op(gate, "HardSigmoid") &&
               near(attr_float(graph, gate, "alpha", 0.2f), 1.0 / 6) &&
               near(attr_float(graph, gate, "beta", 0.5f), 0.5)) {
      kind = ActivationKind::kHardSwish;
    } else {
      continue;
    }
    const ir::ValueId gated = output_at(gate, 0);
    if (!is_onnx_op(graph.nodes[m], "Mul") || other_input(graph.nodes[m], value) != gated) continue;
    if (gated == ir::kNoValue || sole_reader(graph, readers, gated) != m) continue;
    const ir::ValueId result = output_at(graph.nodes[m], 0);
    if (result == ir::kNoValue) continue;
    return ActivationMatch{{kind}, {std::min(s, m), std::max(s, m)}, result};
  }
  return std::nullopt;
}

// torch's GELU export: Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5).
std::optional<ActivationMatch> match_gelu(const ir::Graph& graph,
                                          const std::vector<std::vector<size_t>>& readers,
                                          const std::vector<bool>& dead, ir::ValueId value) {
  const std::vector<size_t>& r = readers[size_t(value)];
  if (r.size() != 2 || graph.values[size_t(value)].is_graph_output) return std::nullopt;
  for (int first = 0; first < 2; ++first) {
    const size_t div = r[size_t(first)], mul = r[size_t(1 - first)];
    if (dead[div] || dead[mul]) continue;
    const ir::Node& d = graph.nodes[div];
    if (!is_onnx_op(d, "Div") || input_at(d, 0) != value ||
        !near(scalar_constant(graph, input_at(d, 1)), std::numbers::sqrt2))
      continue;
    const std::optional<size_t> erf = next(graph, readers, dead, output_at(d, 0), "Erf");
    if (!erf) continue;
    const ir::ValueId erf_out = output_at(graph.nodes[*erf], 0);
    const std::optional<size_t> add = next(graph, readers, dead, erf_out, "Add");
    if (!add || !near(other_scalar(graph, graph.nodes[*add], erf_out), 1.0)) continue;
    const ir::ValueId add_out = output_at(graph.nodes[*add], 0);
    if (sole_reader(graph, readers, add_out) != mul ||
        other_input(graph.nodes[mul], add_out) != value || !is_onnx_op(graph.nodes[mul], "Mul"))
      continue;
    const ir::ValueId mul_out = output_at(graph.nodes[mul], 0);
    const std::optional<size_t> half = next(graph, readers, dead, mul_out, "Mul");
    if (!half || !near(other_scalar(graph, graph.nodes[*half], mul_out), 0.5) ||
        output_at(graph.nodes[*half], 0) == ir::kNoValue)
      continue;
    return ActivationMatch{
        {ActivationKind::kGelu}, {div, *erf, *add, mul, *half}, graph.nodes[*half].outputs[0]};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ActivationMatch> match_activation(const ir::Graph& graph,
                                                const std::vector<std::vector<size_t>>& readers,
                                                const std::vector<bool>& dead, ir::ValueId value) {
  if (value == ir::kNoValue) return std::nullopt;  // an unnamed output: nothing reads it
  if (std::optional<ActivationMatch> m = match_gated(graph, readers, dead, value)) return m;
  if (std::optional<ActivationMatch> m = match_gelu(graph, readers, dead, value)) return m;
  const std::optional<size_t> n = sole_reader(graph, readers, value);
  if (!n || dead[*n]) return std::nullopt;
  const ir::Node& node = graph.nodes[*n];
  if (node.inputs.empty() || node.inputs[0] != value || node.outputs.size() != 1 ||
      node.outputs[0] == ir::kNoValue)
    return std::nullopt;
  const std::optional<ops::Activation> a = single_node_activation(graph, node);
  if (!a) return std::nullopt;
  return ActivationMatch{*a, {*n}, node.outputs[0]};
}

}  // namespace strata::passes
