// Element-wise ops over any number (>= 1) of inputs with numpy broadcasting: Max Mean Min Sum.
// Float inputs are accumulated in double and rounded once at the end; integers (Max, Min, Sum)
// in their own type, Sum wrapping around on overflow. Max and Min propagate NaN.
//
// Cost, FLOPs per output element (elementwise_cost), for n inputs: Max, Min and Sum n - 1
// (one comparison or add per extra input), Mean n (n - 1 adds and a divide).
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

enum class VariadicKind { kMax, kMean, kMin, kSum };

// Accumulator type: double for every float type, the type itself for integers.
template <class T>
using accumulator_t = std::conditional_t<std::is_integral_v<T>, T, double>;

template <class A>
A maximum(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
  return x < y ? y : x;
}

template <class A>
A minimum(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
  return y < x ? y : x;
}

class VariadicOp final : public Op {
 public:
  explicit VariadicOp(const NodeInfo& node) {
    const std::string& type = node.op_type();
    if (type == "Max")
      kind_ = VariadicKind::kMax;
    else if (type == "Mean")
      kind_ = VariadicKind::kMean;
    else if (type == "Min")
      kind_ = VariadicKind::kMin;
    else if (type == "Sum")
      kind_ = VariadicKind::kSum;
    else
      fail_internal("make_variadic called for op type {}", type);
  }

  void infer(InferContext& ctx) const override {
    if (ctx.num_inputs() == 0) fail("needs at least one input");
    const DType dtype = ctx.dtype(0);
    for (size_t i = 1; i < ctx.num_inputs(); ++i)
      if (ctx.dtype(i) != dtype)
        fail("input {} has dtype {}, but input 0 is {}", i, dtype_name(ctx.dtype(i)),
             dtype_name(dtype));
    // Mean is defined for floats only; Max, Min and Sum for every numeric type.
    const bool supported = is_float(dtype) || (kind_ != VariadicKind::kMean && is_integer(dtype));
    if (!supported) fail("does not support dtype {}", dtype_name(dtype));
    ctx.set_output(0, dtype, broadcast_input_shapes(ctx));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const double n = double(ctx.num_inputs());
    return elementwise_cost(ctx, kind_ == VariadicKind::kMean ? n : n - 1);
  }

  void run(KernelContext& ctx) const override {
    Tensor& y = ctx.output(0);
    const bool visited = visit_numeric(y.dtype(), [&]<class T>(Type<T>) {
      using A = accumulator_t<T>;
      std::vector<A> acc(size_t(y.numel()));
      const Operand<A> acc_operand{acc.data(), y.shape()};
      broadcast_map(
          acc.data(), y.shape(), [](A v) { return v; }, operand<T>(ctx.input(0)));
      for (size_t i = 1; i < ctx.num_inputs(); ++i) {
        const Operand<T> in = operand<T>(ctx.input(i));
        switch (kind_) {
          case VariadicKind::kMax:
            broadcast_map(acc.data(), y.shape(), maximum<A>, acc_operand, in);
            break;
          case VariadicKind::kMin:
            broadcast_map(acc.data(), y.shape(), minimum<A>, acc_operand, in);
            break;
          case VariadicKind::kMean:
          case VariadicKind::kSum:
            broadcast_map(acc.data(), y.shape(), wrap_add<A>, acc_operand, in);
            break;
        }
      }
      const A count = A(ctx.num_inputs());
      if (kind_ == VariadicKind::kMean)
        broadcast_map(
            y.data<T>(), y.shape(), [count](A v) { return v / count; }, acc_operand);
      else
        broadcast_map(
            y.data<T>(), y.shape(), [](A v) { return v; }, acc_operand);
    });
    if (!visited) fail_internal("variadic kernel reached with dtype {}", dtype_name(y.dtype()));
  }

 private:
  VariadicKind kind_ = VariadicKind::kSum;
};

}  // namespace

std::unique_ptr<Op> make_variadic(const NodeInfo& node) {
  return std::make_unique<VariadicOp>(node);
}

}  // namespace strata::ops
