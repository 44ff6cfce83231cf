// CumSum and CumProd (opset 26): running sums (products) along the axis given by the second
// input, optionally exclusive (each output leaves out its own element: the first is 0, or 1) and/or
// reversed (from the end). Integers wrap around on overflow.
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

template <class T>
void cumulative_kernel(const Tensor& in, int64_t axis, bool product, bool exclusive, bool reverse,
                       Tensor& out) {
  const AxisSplit s = split_at(in.shape(), axis, axis + 1);
  const T* x = in.data<T>();
  T* y = out.data<T>();
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      acc_t<T> acc = product ? 1 : 0;
      auto fold = [&](acc_t<T> value) {
        acc = product ? wrap_mul(acc, value) : wrap_add(acc, value);
      };
      for (int64_t step = 0; step < s.n; ++step) {
        const int64_t at = s.offset(o, reverse ? s.n - 1 - step : step, i);
        const acc_t<T> value = to_acc(x[at]);  // read before writing: y may alias x
        if (!exclusive) fold(value);
        y[at] = from_acc<T>(acc);
        if (exclusive) fold(value);
      }
    }
  }
}

void check_axis_dtype(DType dtype) {
  if (dtype != DType::kI32 && dtype != DType::kI64)
    fail("input 'axis' must be int32 or int64, got {}", dtype_name(dtype));
}

// The axis input: a scalar (or one-element) int32/int64 tensor.
int64_t axis_from(const Tensor& axis_tensor, int64_t rank) {
  check_axis_dtype(axis_tensor.dtype());
  if (axis_tensor.numel() != 1)
    fail("input 'axis' must hold one value, got shape {}", axis_tensor.shape_str());
  return normalize_axis(axis_tensor.to_int64()[0], rank);
}

class CumSumOp final : public Op {
 public:
  explicit CumSumOp(const NodeInfo& node)
      : product_(node.op_type() == "CumProd"),
        exclusive_(node.attr_int("exclusive", 0) != 0),
        reverse_(node.attr_int("reverse", 0) != 0) {}

  void infer(InferContext& ctx) const override {
    const Meta& data = ctx.input(0);
    if (!is_float(data.dtype) && !is_integer(data.dtype))
      fail("input does not support dtype {}", dtype_name(data.dtype));
    if (data.shape.rank() == 0) fail("input must have rank >= 1, got a scalar");
    // The output shape does not depend on the axis: check it when known, else in run.
    const Meta& axis = ctx.input(1);
    check_axis_dtype(axis.dtype);
    if (axis.value) axis_from(*axis.value, data.shape.rank());
    ctx.set_output(0, data.dtype, data.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    c.flops = ctx.numel_in(0);  // one add (multiply) per element
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    const int64_t axis = axis_from(ctx.input(1), in.rank());
    visit_numeric(in.dtype(), [&]<class T>(Type<T>) {
      cumulative_kernel<T>(in, axis, product_, exclusive_, reverse_, ctx.output(0));
    });
  }

 private:
  bool product_;
  bool exclusive_;
  bool reverse_;
};

}  // namespace

std::unique_ptr<Op> make_cumsum(const NodeInfo& node) {
  return std::make_unique<CumSumOp>(node);
}

}  // namespace strata::ops
