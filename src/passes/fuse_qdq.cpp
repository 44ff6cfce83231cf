#include "passes/fuse_qdq.h"

#include <cmath>
#include <optional>

#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

bool is_8_bit(DType t) {
  return t == DType::kU8 || t == DType::kI8;
}

int64_t int_attribute(const ir::Node& node, const char* name, int64_t fallback) {
  const auto it = node.attributes.find(name);
  return it == node.attributes.end() ? fallback : it->second.i;
}

// A DequantizeLinear or QuantizeLinear and its operands, when its scale is a float32 constant,
// its zero point a constant (or omitted) and it is not blocked.
struct Quantizer {
  size_t node;
  ir::ValueId data, scale, zero_point;  // zero_point may be kNoValue
  const Tensor* scale_values;
};

std::optional<Quantizer> quantizer(const ir::Graph& graph, size_t n, const char* op_type) {
  const ir::Node& node = graph.nodes[n];
  if (!is_onnx_op(node, op_type) || node.inputs.size() < 2 || node.outputs.size() != 1) return {};
  if (int_attribute(node, "block_size", 0) != 0) return {};
  const Tensor* scale = constant_of(graph, node.inputs[1]);
  if (!scale || scale->dtype() != DType::kF32) return {};
  for (double s : scale->to_double())
    if (!(s > 0) || !std::isfinite(s)) return {};  // left for the op to refuse, naming its node
  const ir::ValueId zp = node.inputs.size() > 2 ? node.inputs[2] : ir::kNoValue;
  if (zp != ir::kNoValue && !constant_of(graph, zp)) return {};
  return Quantizer{n, node.inputs[0], node.inputs[1], zp, scale};
}

// The DequantizeLinear producing `value`, as a Quantizer.
std::optional<Quantizer> dequantizer_of(const ir::Graph& graph, ir::ValueId value) {
  const int32_t producer = graph.values[size_t(value)].producer;
  if (producer < 0) return {};
  return quantizer(graph, size_t(producer), "DequantizeLinear");
}

// The zero point of `q` as a value, made a constant of `dtype` 0 when omitted.
ir::ValueId zero_point_value(ir::Graph& graph, const Quantizer& q, DType dtype) {
  if (q.zero_point != ir::kNoValue) return q.zero_point;
  const std::string name = graph.values[size_t(q.data)].name + "_zero_point";
  return add_constant(graph, name, Tensor::zeros(dtype, {}));
}

// True when the bias' scale is x_scale · w_scale (as the quantizer writes int32 biases) and its
// zero point 0: QLinearConv's B is in those units.
bool bias_in_product_units(const Quantizer& b, const Quantizer& x, const Quantizer& w,
                           const ir::Graph& graph) {
  if (b.zero_point != ir::kNoValue)
    for (double z : constant_of(graph, b.zero_point)->to_double())
      if (z != 0) return false;
  const std::vector<double> bs = b.scale_values->to_double();
  const std::vector<double> ws = w.scale_values->to_double();
  const double xs = x.scale_values->to_double()[0];
  if (bs.size() != ws.size() && bs.size() != 1) return false;
  for (size_t m = 0; m < std::max(bs.size(), ws.size()); ++m) {
    const double want = xs * ws[ws.size() == 1 ? 0 : m];
    if (std::abs(bs[bs.size() == 1 ? 0 : m] - want) > 1e-6 * want) return false;
  }
  return true;
}

}  // namespace

size_t fuse_qdq_conv(ir::Graph& graph) {
  if (graph.opset < 10) return 0;  // QLinearConv is opset 10
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& conv = graph.nodes[n];
    if (dead[n] || !is_onnx_op(conv, "Conv") || conv.outputs.size() != 1 || conv.inputs.size() < 2)
      continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    const std::optional<size_t> q_node = sole_reader(graph, readers, conv.outputs[0]);
    if (!q_node || dead[*q_node]) continue;
    const std::optional<Quantizer> y = quantizer(graph, *q_node, "QuantizeLinear");
    const std::optional<Quantizer> x = dequantizer_of(graph, conv.inputs[0]);
    const std::optional<Quantizer> w = dequantizer_of(graph, conv.inputs[1]);
    if (!y || !x || !w || y->scale_values->numel() != 1 || x->scale_values->numel() != 1) continue;
    const ir::Value& yq = graph.values[size_t(graph.nodes[*q_node].outputs[0])];
    if (!is_8_bit(yq.dtype) || !is_8_bit(graph.values[size_t(x->data)].dtype)) continue;
    const Tensor* weights = constant_of(graph, w->data);
    if (!weights || !is_8_bit(weights->dtype()) || weights->rank() < 3) continue;
    const int64_t w_axis = int_attribute(graph.nodes[w->node], "axis", 1);
    if (w->scale_values->numel() != 1 && (w->scale_values->numel() != weights->dim(0) ||
                                          (w_axis != 0 && w_axis != -weights->rank())))
      continue;  // QLinearConv's weight scales are per tensor or per output channel
    std::optional<Quantizer> b;
    if (conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue) {
      b = dequantizer_of(graph, conv.inputs[2]);
      const Tensor* bias = b ? constant_of(graph, b->data) : nullptr;
      if (!bias || bias->dtype() != DType::kI32 || !bias_in_product_units(*b, *x, *w, graph))
        continue;
    }

    ir::Node node;
    node.name = conv.name;
    node.op_type = "QLinearConv";
    node.attributes = conv.attributes;
    const ir::ValueId out = graph.nodes[*q_node].outputs[0];
    const DType x_type = graph.values[size_t(x->data)].dtype;
    node.inputs = {x->data,
                   x->scale,
                   zero_point_value(graph, *x, x_type),
                   w->data,
                   w->scale,
                   zero_point_value(graph, *w, weights->dtype()),
                   y->scale,
                   zero_point_value(graph, *y, graph.values[size_t(out)].dtype)};
    if (b) node.inputs.push_back(b->data);
    node.outputs = {out};
    // The DequantizeLinear nodes read by this convolution alone go with it.
    std::vector<size_t> chain;
    for (const std::optional<Quantizer>& dq : {x, w, b})
      if (dq && readers[size_t(graph.nodes[dq->node].outputs[0])].size() == 1 &&
          !graph.values[size_t(graph.nodes[dq->node].outputs[0])].is_graph_output)
        chain.push_back(dq->node);
    chain.push_back(n);
    chain.push_back(*q_node);
    dead.resize(graph.nodes.size(), false);
    replace_chain(graph, chain, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
