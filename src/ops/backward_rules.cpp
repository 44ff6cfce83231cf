#include "ops/backward_rules.h"

#include <array>
#include <cmath>
#include <functional>

#include "core/error.h"
#include "ops/broadcast.h"

namespace strata::ops {

namespace {

constexpr std::array<std::string_view, 13> kRuleOps = {"Add",    "Sub",  "Mul",     "Div",  "Neg",
                                                       "MatMul", "Relu", "Sigmoid", "Tanh", "Exp",
                                                       "Log",    "Sqrt", "Identity"};

Array zeros_like(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return {shape, std::vector<double>(size_t(n), 0.0)};
}

// Binary elementwise ops: `local(a, b)` gives (∂y/∂a, ∂y/∂b) at one element. Each input's
// gradient sums over the elements it was broadcast to.
std::vector<std::optional<Array>> binary(
    const Array& a, const Array& b, const Array& dy, const std::vector<bool>& wanted,
    const std::function<std::pair<double, double>(double, double)>& local) {
  Array ga = zeros_like(a.shape), gb = zeros_like(b.shape);
  const std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(a.shape, dy.shape),
                                                       broadcast_strides(b.shape, dy.shape)};
  for_each_broadcast<2>(dy.shape, strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
    const auto [da, db] = local(a.data[size_t(off[0])], b.data[size_t(off[1])]);
    ga.data[size_t(off[0])] += dy.data[size_t(i)] * da;
    gb.data[size_t(off[1])] += dy.data[size_t(i)] * db;
  });
  std::vector<std::optional<Array>> out(2);
  if (wanted[0]) out[0] = std::move(ga);
  if (wanted[1]) out[1] = std::move(gb);
  return out;
}

// Unary ops: `local(x, y)` gives ∂y/∂x at one element.
std::vector<std::optional<Array>> unary(const Array& x, const Array& y, const Array& dy,
                                        const std::function<double(double, double)>& local) {
  Array gx = zeros_like(x.shape);
  for (size_t i = 0; i < gx.data.size(); ++i) gx.data[i] = dy.data[i] * local(x.data[i], y.data[i]);
  return {std::move(gx)};
}

// MatMul with numpy semantics: a 1-D A is a row [1, K], a 1-D B a column [K, 1] (their dims
// absent from Y); batch dims broadcast. dA = dY · Bᵀ and dB = Aᵀ · dY, summed over the batches
// each operand was broadcast to.
std::vector<std::optional<Array>> matmul(const Array& a, const Array& b, const Array& dy,
                                         const std::vector<bool>& wanted) {
  std::vector<int64_t> as = a.shape, bs = b.shape, ys = dy.shape;
  if (as.size() == 1) {
    as.insert(as.begin(), 1);
    ys.insert(ys.end() - (bs.size() == 1 ? 0 : 1), 1);
  }
  if (bs.size() == 1) {
    bs.push_back(1);
    ys.push_back(1);
  }
  const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  const std::vector<int64_t> batch_a(as.begin(), as.end() - 2), batch_b(bs.begin(), bs.end() - 2),
      batch_y(ys.begin(), ys.end() - 2);
  Array ga = zeros_like(a.shape), gb = zeros_like(b.shape);
  const std::array<std::vector<int64_t>, 2> strides = {broadcast_strides(batch_a, batch_y),
                                                       broadcast_strides(batch_b, batch_y)};
  std::vector<int64_t> batch_y_shape = batch_y;
  if (batch_y_shape.empty()) batch_y_shape = {1};
  const std::array<std::vector<int64_t>, 2> used =
      batch_y.empty()
          ? std::array<std::vector<int64_t>, 2>{std::vector<int64_t>{0}, std::vector<int64_t>{0}}
          : strides;
  for_each_broadcast<2>(batch_y_shape, used, [&](int64_t p, const std::array<int64_t, 2>& off) {
    const double* A = a.data.data() + off[0] * m * k;
    const double* B = b.data.data() + off[1] * k * n;
    const double* G = dy.data.data() + p * m * n;
    double* GA = ga.data.data() + off[0] * m * k;
    double* GB = gb.data.data() + off[1] * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double g = G[i * n + j];
        for (int64_t l = 0; l < k; ++l) {
          GA[i * k + l] += g * B[l * n + j];
          GB[l * n + j] += A[i * k + l] * g;
        }
      }
  });
  std::vector<std::optional<Array>> out(2);
  if (wanted[0]) out[0] = std::move(ga);
  if (wanted[1]) out[1] = std::move(gb);
  return out;
}

}  // namespace

Array to_array(const Tensor& t) {
  return {t.shape(), t.to_double()};
}

bool has_backward_rule(std::string_view op_type) {
  for (std::string_view op : kRuleOps)
    if (op == op_type) return true;
  return false;
}

std::string backward_rule_ops() {
  std::string list;
  for (std::string_view op : kRuleOps) {
    if (!list.empty()) list += ", ";
    list += op;
  }
  return list;
}

std::vector<std::optional<Array>> backward(std::string_view op, const std::vector<const Array*>& in,
                                           const Array& y, const Array& dy,
                                           const std::vector<bool>& wanted) {
  if (op == "Add")
    return binary(*in[0], *in[1], dy, wanted,
                  [](double, double) { return std::make_pair(1.0, 1.0); });
  if (op == "Sub")
    return binary(*in[0], *in[1], dy, wanted,
                  [](double, double) { return std::make_pair(1.0, -1.0); });
  if (op == "Mul")
    return binary(*in[0], *in[1], dy, wanted,
                  [](double a, double b) { return std::make_pair(b, a); });
  if (op == "Div")
    return binary(*in[0], *in[1], dy, wanted,
                  [](double a, double b) { return std::make_pair(1.0 / b, -a / (b * b)); });
  if (op == "MatMul") return matmul(*in[0], *in[1], dy, wanted);
  const Array& x = *in[0];
  if (op == "Neg") return unary(x, y, dy, [](double, double) { return -1.0; });
  if (op == "Identity") return unary(x, y, dy, [](double, double) { return 1.0; });
  if (op == "Relu") return unary(x, y, dy, [](double v, double) { return v > 0 ? 1.0 : 0.0; });
  if (op == "Sigmoid") return unary(x, y, dy, [](double, double s) { return s * (1 - s); });
  if (op == "Tanh") return unary(x, y, dy, [](double, double t) { return 1 - t * t; });
  if (op == "Exp") return unary(x, y, dy, [](double, double e) { return e; });
  if (op == "Log") return unary(x, y, dy, [](double v, double) { return 1 / v; });
  if (op == "Sqrt") return unary(x, y, dy, [](double, double r) { return 0.5 / r; });
  fail_internal("no backward rule for {}", op);
}

}  // namespace strata::ops
