#include "passes/fuse_qdq.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "kernels/int8_products.h"
#include "ops/internal_ops.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

int64_t int_attribute(const ir::Node& node, const char* name, int64_t fallback) {
  const auto it = node.attributes.find(name);
  return it == node.attributes.end() ? fallback : it->second.i;
}

float float_attribute(const ir::Node& node, const char* name, float fallback) {
  const auto it = node.attributes.find(name);
  return it == node.attributes.end() ? fallback : it->second.f;
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
  if (int_attribute(node, "block_size", 0) != 0 || node.inputs[0] == ir::kNoValue) return {};
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
  if (value == ir::kNoValue) return {};  // an unnamed input: the op refuses it, naming its node
  const int32_t producer = graph.values[size_t(value)].producer;
  if (producer < 0) return {};
  return quantizer(graph, size_t(producer), "DequantizeLinear");
}

// The QuantizeLinear that alone reads `value` (not yet replaced), as a Quantizer.
std::optional<Quantizer> quantizer_reading(const ir::Graph& graph,
                                           const std::vector<std::vector<size_t>>& readers,
                                           const std::vector<bool>& dead, ir::ValueId value) {
  const std::optional<size_t> reader = sole_reader(graph, readers, value);
  if (!reader || dead[*reader]) return {};
  return quantizer(graph, *reader, "QuantizeLinear");
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

// The DequantizeLinear nodes among `dqs` that the fused node's op alone reads: they go with it.
std::vector<size_t> dequantizers_read_only_by(const ir::Graph& graph,
                                              const std::vector<std::vector<size_t>>& readers,
                                              std::initializer_list<std::optional<Quantizer>> dqs) {
  std::vector<size_t> nodes;
  for (const std::optional<Quantizer>& dq : dqs) {
    if (!dq) continue;
    const ir::ValueId v = graph.nodes[dq->node].outputs[0];
    if (readers[size_t(v)].size() == 1 && !graph.values[size_t(v)].is_graph_output)
      nodes.push_back(dq->node);
  }
  return nodes;
}

// The QDQ products left as DequantizeLinear → product → QuantizeLinear because no int8 kernel
// computes them exactly here, and why the first of them was (for --verbose).
struct LeftInFloat {
  size_t count = 0;
  std::string first;
};

// A product (Conv, MatMul, Gemm) between DequantizeLinear and QuantizeLinear: x and y quantized
// per tensor to 8 bits, the weights an 8-bit constant of `rank` (0: 3 or more) whose scale is one
// value or one per index along axis `per_axis` (an output channel or column). `conv_group`: the
// convolution's group, 0 for the matrix products.
struct QdqProduct {
  Quantizer x, w, y;
  ir::ValueId out;
  const Tensor* weights;
};

std::optional<QdqProduct> qdq_product_at(const ir::Graph& graph,
                                         const std::vector<std::vector<size_t>>& readers,
                                         const std::vector<bool>& dead, size_t n, int64_t rank,
                                         int64_t per_axis, int64_t conv_group, LeftInFloat& left) {
  const ir::Node& product = graph.nodes[n];
  if (product.inputs.size() < 2) return {};
  const std::optional<Quantizer> y = quantizer_reading(graph, readers, dead, product.outputs[0]);
  const std::optional<Quantizer> x = dequantizer_of(graph, product.inputs[0]);
  const std::optional<Quantizer> w = dequantizer_of(graph, product.inputs[1]);
  if (!y || !x || !w || y->scale_values->numel() != 1 || x->scale_values->numel() != 1) return {};
  const ir::ValueId out = graph.nodes[y->node].outputs[0];
  if (!is_8_bit(graph.values[size_t(out)].dtype) || !is_8_bit(graph.values[size_t(x->data)].dtype))
    return {};
  const Tensor* weights = constant_of(graph, w->data);
  if (!weights || !is_8_bit(weights->dtype()) ||
      (rank ? weights->rank() != rank : weights->rank() < 3))
    return {};
  const int64_t axis = int_attribute(graph.nodes[w->node], "axis", 1);
  if (w->scale_values->numel() != 1 && (w->scale_values->numel() != weights->dim(per_axis) ||
                                        (axis != per_axis && axis != per_axis - weights->rank())))
    return {};
  // Where no int8 kernel would compute the product exactly here (uint8 weights; weights that
  // oneDNN's kernels saturate on a CPU without VNNI, unless one of strata's exact int8
  // convolutions, group 1 or depthwise, takes the convolution: kernels::int8_conv_route), it stays
  // DequantizeLinear → product → QuantizeLinear, the QDQ graph's own definition, which the float32
  // kernels run fast.
  const DType x_type = graph.values[size_t(x->data)].dtype;
  std::string problem;
  if (conv_group) {
    kernels::Int8ConvRoute route = kernels::int8_conv_route(*weights, conv_group, x_type);
    if (route.kernel == kernels::Int8ConvKernel::kNone) problem = std::move(route.reason);
  } else if (weights->dtype() != DType::kI8) {
    problem = "its weights are uint8 (oneDNN's int8 kernels take int8 weights)";
  } else if (std::string inexact = kernels::int8_product_problem(*weights, per_axis, x_type);
             !inexact.empty()) {
    // oneDNN's int8 matmul would saturate: strata's exact int8 GEMM takes it where it can.
    const std::string exact = kernels::exact_int8_matmul_problem(*weights, per_axis);
    if (!exact.empty()) problem = inexact + "; strata's exact int8 GEMM: " + exact;
  }
  if (!problem.empty()) {
    if (left.count++ == 0) left.first = fmt::format("node '{}': {}", product.name, problem);
    return {};
  }
  return QdqProduct{*x, *w, *y, out, weights};
}

// The fused node's eight QLinear operands (x, its scale and zero point, the weights `w_data`,
// theirs, y's scale and zero point; then `bias` when given), zero points made constants where
// omitted, and the nodes it replaces: the DequantizeLinear nodes only it reads (x's, w's, the
// bias'), the product `n`, the QuantizeLinear.
std::pair<ir::Node, std::vector<size_t>> qlinear_node(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers, const QdqProduct& p,
    ir::ValueId w_data, size_t n, ir::Node node, const std::optional<Quantizer>& bias) {
  node.inputs = {p.x.data,
                 p.x.scale,
                 zero_point_value(graph, p.x, graph.values[size_t(p.x.data)].dtype),
                 w_data,
                 p.w.scale,
                 zero_point_value(graph, p.w, p.weights->dtype()),
                 p.y.scale,
                 zero_point_value(graph, p.y, graph.values[size_t(p.out)].dtype)};
  if (bias) node.inputs.push_back(bias->data);
  node.outputs = {p.out};
  std::vector<size_t> chain = dequantizers_read_only_by(graph, readers, {p.x, p.w, bias});
  chain.push_back(n);
  chain.push_back(p.y.node);
  return {std::move(node), std::move(chain)};
}

// The int32 bias behind DequantizeLinear at input `i` of node `n` of N values in x_scale · w_scale
// units with zero point 0: nullopt when there is none (`ok` true) or it is not one (`ok` false).
std::optional<Quantizer> product_bias(const ir::Graph& graph, size_t n, size_t i,
                                      const QdqProduct& p, int64_t columns, bool& ok) {
  ok = true;
  const ir::ValueId value = input_at(graph.nodes[n], i);
  if (value == ir::kNoValue) return {};
  std::optional<Quantizer> bias = dequantizer_of(graph, value);
  const Tensor* values = bias ? constant_of(graph, bias->data) : nullptr;
  ok = values && values->dtype() == DType::kI32 && values->rank() == 1 &&
       values->dim(0) == columns && bias_in_product_units(*bias, p.x, p.w, graph);
  return bias;
}

// The QLinearConv for a DequantizeLinear → Conv → QuantizeLinear at node `n`, and the nodes it
// replaces; nullopt when `n` is not one.
std::optional<std::pair<ir::Node, std::vector<size_t>>> qlinear_conv_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat& left) {
  const int64_t group = std::max<int64_t>(1, int_attribute(graph.nodes[n], "group", 1));
  const std::optional<QdqProduct> p = qdq_product_at(graph, readers, dead, n, 0, 0, group, left);
  if (!p) return {};
  bool bias_ok = false;
  const std::optional<Quantizer> bias = product_bias(graph, n, 2, *p, p->weights->dim(0), bias_ok);
  if (!bias_ok) return {};
  ir::Node node;
  node.name = graph.nodes[n].name;
  node.op_type = "QLinearConv";
  node.attributes = graph.nodes[n].attributes;
  return qlinear_node(graph, readers, *p, p->w.data, n, std::move(node), bias);
}

// The QLinearMatMul for a DequantizeLinear → MatMul (constant 2-D int8 weights, one scale or one
// per column) → QuantizeLinear at node `n`, and the nodes it replaces; nullopt when `n` is not
// one.
std::optional<std::pair<ir::Node, std::vector<size_t>>> qlinear_matmul_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat& left) {
  if (graph.nodes[n].inputs.size() != 2) return {};
  const std::optional<QdqProduct> p = qdq_product_at(graph, readers, dead, n, 2, 1, 0, left);
  if (!p) return {};
  ir::Node node;
  node.name = graph.nodes[n].name;
  node.op_type = "QLinearMatMul";
  return qlinear_node(graph, readers, *p, p->w.data, n, std::move(node), std::nullopt);
}

// [N, K] 8-bit weights as [K, N].
Tensor transposed(const Tensor& w) {
  const int64_t n = w.dim(0), k = w.dim(1);
  Tensor t = Tensor::zeros(w.dtype(), {k, n});
  const auto* from = static_cast<const uint8_t*>(w.raw());
  auto* to = static_cast<uint8_t*>(t.raw());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) to[j * n + i] = from[i * k + j];
  return t;
}

// strata's QLinearGemm for a DequantizeLinear → Gemm (alpha 1, beta 1, A not transposed; constant
// int8 weights with one scale or one per output column; an int32 bias of N values in
// x_scale · w_scale units, or none) → QuantizeLinear at node `n`, and the nodes it replaces.
// Weights stored [N, K] (transB = 1, as torch's Linear exports them) are transposed here, once.
std::optional<std::pair<ir::Node, std::vector<size_t>>> qlinear_gemm_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat& left) {
  const ir::Node& gemm = graph.nodes[n];
  if (int_attribute(gemm, "transA", 0) != 0 || float_attribute(gemm, "alpha", 1) != 1 ||
      float_attribute(gemm, "beta", 1) != 1)
    return {};
  const bool trans_b = int_attribute(gemm, "transB", 0) != 0;
  const std::optional<QdqProduct> p =
      qdq_product_at(graph, readers, dead, n, 2, trans_b ? 0 : 1, 0, left);
  if (!p) return {};
  bool bias_ok = false;
  const std::optional<Quantizer> bias =
      product_bias(graph, n, 2, *p, p->weights->dim(trans_b ? 0 : 1), bias_ok);
  if (!bias_ok) return {};
  ir::Node node;
  node.name = gemm.name;
  node.domain = std::string(ops::kStrataDomain);
  node.op_type = "QLinearGemm";
  const ir::ValueId w_data =
      trans_b ? add_constant(graph, graph.values[size_t(p->w.data)].name + "_transposed",
                             transposed(*p->weights))
              : p->w.data;
  return qlinear_node(graph, readers, *p, w_data, n, std::move(node), bias);
}

// strata's QLinearAdd for DequantizeLinear(A), DequantizeLinear(B) → Add → QuantizeLinear at node
// `n` (8-bit operands of one shape, one scale and zero point each: a residual add), and the nodes
// it replaces.
std::optional<std::pair<ir::Node, std::vector<size_t>>> qlinear_add_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat& left) {
  const ir::Node& add = graph.nodes[n];
  if (add.inputs.size() != 2) return {};
  const std::optional<Quantizer> c = quantizer_reading(graph, readers, dead, add.outputs[0]);
  const std::optional<Quantizer> a = dequantizer_of(graph, add.inputs[0]);
  const std::optional<Quantizer> b = dequantizer_of(graph, add.inputs[1]);
  if (!c || !a || !b || a->node == b->node) return {};
  for (const Quantizer* q : {&*a, &*b, &*c})
    if (q->scale_values->numel() != 1) return {};
  const ir::Value& a_value = graph.values[size_t(a->data)];
  const ir::Value& b_value = graph.values[size_t(b->data)];
  const ir::ValueId out = graph.nodes[c->node].outputs[0];
  if (!is_8_bit(a_value.dtype) || !is_8_bit(b_value.dtype) ||
      !is_8_bit(graph.values[size_t(out)].dtype) || !a_value.shape.is_static() ||
      a_value.shape != b_value.shape)
    return {};
  ir::Node node;
  node.name = add.name;
  node.domain = std::string(ops::kStrataDomain);
  node.op_type = "QLinearAdd";
  node.inputs = {a->data,
                 a->scale,
                 zero_point_value(graph, *a, graph.values[size_t(a->data)].dtype),
                 b->data,
                 b->scale,
                 zero_point_value(graph, *b, graph.values[size_t(b->data)].dtype),
                 c->scale,
                 zero_point_value(graph, *c, graph.values[size_t(out)].dtype)};
  node.outputs = {out};
  std::vector<size_t> chain = dequantizers_read_only_by(graph, readers, {a, b});
  chain.push_back(n);
  chain.push_back(c->node);
  return std::make_pair(std::move(node), std::move(chain));
}

// A MaxPool between DequantizeLinear and QuantizeLinear of one scale and zero point (per tensor,
// 8 bits: a QDQ network's stem pool), at node `n`, as a MaxPool of the 8-bit values, and the nodes
// it replaces. Exact: the maximum commutes with the increasing dequantization, and quantizing a
// dequantized 8-bit value with the same scale and zero point gives it back (within two roundings of
// an integer of at most 255). It reads a quarter of the bytes and skips two float32 tensors.
std::optional<std::pair<ir::Node, std::vector<size_t>>> max_pool_in_8_bits_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat&) {
  const ir::Node& pool = graph.nodes[n];
  if (pool.inputs.size() != 1) return {};
  const std::optional<Quantizer> y = quantizer_reading(graph, readers, dead, pool.outputs[0]);
  const std::optional<Quantizer> x = dequantizer_of(graph, pool.inputs[0]);
  if (!x || !y || x->scale_values->numel() != 1 || y->scale_values->numel() != 1) return {};
  const ir::ValueId out = graph.nodes[y->node].outputs[0];
  const DType type = graph.values[size_t(x->data)].dtype;
  if (!is_8_bit(type) || graph.values[size_t(out)].dtype != type) return {};
  if (x->scale_values->to_double() != y->scale_values->to_double()) return {};
  const auto zero = [&](const Quantizer& q) {
    return q.zero_point == ir::kNoValue ? std::vector<double>{0}
                                        : constant_of(graph, q.zero_point)->to_double();
  };
  if (zero(*x) != zero(*y)) return {};
  ir::Node node = pool;
  node.inputs = {x->data};
  node.outputs = {out};
  std::vector<size_t> chain = dequantizers_read_only_by(graph, readers, {x});
  chain.push_back(n);
  chain.push_back(y->node);
  return std::make_pair(std::move(node), std::move(chain));
}

// True when `value` is float32 with one value, or one per column of a product with `columns`.
bool is_scale_or_bias_shape(const ir::Value& value, int64_t columns, bool one_allowed) {
  if (value.dtype != DType::kF32 || !value.shape.is_static() || value.shape.rank() > 1)
    return false;
  const int64_t count = value.shape.rank() == 0 ? 1 : value.shape[0].value();
  return count == columns || (one_allowed && count == 1);
}

// strata's MatMulIntegerToFloat for a dynamically quantized product, MatMulInteger (constant
// 2-D int8 weights) → Cast to float32 → Mul by a scale (one value or one per column, usually
// a_scale · b_scale computed at run time) → optionally Add of a constant bias, at node `n`.
std::optional<std::pair<ir::Node, std::vector<size_t>>> matmul_integer_to_float_at(
    ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
    const std::vector<bool>& dead, size_t n, LeftInFloat& left) {
  const ir::Node& product = graph.nodes[n];
  if (product.inputs.size() < 2) return {};
  const Tensor* weights = constant_of(graph, product.inputs[1]);
  if (!weights || weights->rank() != 2) return {};
  const int64_t columns = weights->dim(1);
  const std::optional<size_t> cast = sole_reader(graph, readers, product.outputs[0]);
  if (!cast || dead[*cast] || !is_onnx_op(graph.nodes[*cast], "Cast") ||
      int_attribute(graph.nodes[*cast], "to", 0) != 1 /* FLOAT */)
    return {};
  const ir::ValueId as_float = output_at(graph.nodes[*cast], 0);
  const std::optional<size_t> mul = sole_reader(graph, readers, as_float);
  if (!mul || dead[*mul] || !is_onnx_op(graph.nodes[*mul], "Mul")) return {};
  const std::optional<ir::ValueId> scale = other_input(graph.nodes[*mul], as_float);
  if (!scale || !is_scale_or_bias_shape(graph.values[size_t(*scale)], columns, true)) return {};
  ir::Node node;
  node.name = product.name;
  node.domain = std::string(ops::kStrataDomain);
  node.op_type = "MatMulIntegerToFloat";
  node.inputs = {product.inputs[0], product.inputs[1], input_at(product, 2), input_at(product, 3),
                 *scale};
  std::vector<size_t> chain = {n, *cast, *mul};
  ir::ValueId out = output_at(graph.nodes[*mul], 0);
  const std::optional<size_t> add = sole_reader(graph, readers, out);
  if (add && !dead[*add] && is_onnx_op(graph.nodes[*add], "Add")) {
    const std::optional<ir::ValueId> bias = other_input(graph.nodes[*add], out);
    if (bias && constant_of(graph, *bias) &&
        is_scale_or_bias_shape(graph.values[size_t(*bias)], columns, false)) {
      node.inputs.push_back(*bias);
      chain.push_back(*add);
      out = output_at(graph.nodes[*add], 0);
    }
  }
  node.outputs = {out};
  return std::make_pair(std::move(node), std::move(chain));
}

}  // namespace

size_t fuse_qdq(ir::Graph& graph, std::string* left_alone) {
  if (graph.opset < 10) return 0;  // QLinearConv and QLinearMatMul are opset 10
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  LeftInFloat left;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || graph.nodes[n].outputs.size() != 1) continue;
    const ir::Node& node = graph.nodes[n];
    const auto at = is_onnx_op(node, "Conv")            ? &qlinear_conv_at
                    : is_onnx_op(node, "MatMul")        ? &qlinear_matmul_at
                    : is_onnx_op(node, "Gemm")          ? &qlinear_gemm_at
                    : is_onnx_op(node, "Add")           ? &qlinear_add_at
                    : is_onnx_op(node, "MaxPool")       ? &max_pool_in_8_bits_at
                    : is_onnx_op(node, "MatMulInteger") ? &matmul_integer_to_float_at
                                                        : nullptr;
    if (!at) continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    auto found = at(graph, readers, dead, n, left);
    if (!found) continue;
    replace_chain(graph, found->second, std::move(found->first), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  if (left_alone && left.count)
    *left_alone = fmt::format("{} QDQ product{} left in float32, {}", left.count,
                              left.count == 1 ? "" : "s", left.first);
  return fused;
}

}  // namespace strata::passes
