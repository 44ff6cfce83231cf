// Range: [start, start + delta, ...] up to (excluding) limit; ceil((limit - start) / delta)
// elements, none when that is negative.
#include <cmath>
#include <type_traits>

#include "core/checked.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

// Opset 11 types, plus float16 and bfloat16 that later opsets add.
bool is_range_dtype(DType dtype) {
  return is_float(dtype) || dtype == DType::kI16 || dtype == DType::kI32 || dtype == DType::kI64;
}

double scalar_of(const Tensor& t, const char* input) {
  if (t.numel() != 1) fail("input '{}' must be a scalar, not of shape {}", input, t.shape_str());
  return t.to_double()[0];
}

int64_t scalar_int_of(const Tensor& t, const char* input) {
  if (t.numel() != 1) fail("input '{}' must be a scalar, not of shape {}", input, t.shape_str());
  return t.to_int64()[0];
}

// The element count, checked: a zero delta, a non-finite bound or an absurd count fails.
int64_t range_count(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (is_integer(start.dtype())) {  // exact integer arithmetic, in 128 bits to avoid overflow
    const __int128 first = scalar_int_of(start, "start"), last = scalar_int_of(limit, "limit");
    const __int128 step = scalar_int_of(delta, "delta");
    if (step == 0) fail("input 'delta' must not be zero");
    const __int128 span = last - first;
    __int128 n = span / step;
    if (n * step != span && ((span < 0) == (step < 0))) ++n;  // ceil for same-sign operands
    if (n < 0) n = 0;
    if (n > kMaxElements) fail("range of {} elements is too large", double(n));
    return int64_t(n);
  }
  const double first = scalar_of(start, "start"), last = scalar_of(limit, "limit");
  const double step = scalar_of(delta, "delta");
  if (step == 0) fail("input 'delta' must not be zero");
  const double n = std::ceil((last - first) / step);
  if (!std::isfinite(n)) fail("range from {} to {} by {} is not finite", first, last, step);
  if (n > double(kMaxElements)) fail("range of {} elements is too large", n);
  return n < 0 ? 0 : int64_t(n);
}

// out[i] = start + i * delta, in int64 for integer types (exact) and double for floats.
void fill_range(const Tensor& start, const Tensor& delta, Tensor& out) {
  visit_numeric(out.dtype(), [&]<class T>(Type<T>) {
    T* data = out.data<T>();
    if constexpr (std::is_integral_v<T>) {
      const int64_t first = start.to_int64()[0], step = delta.to_int64()[0];
      for (int64_t i = 0; i < out.numel(); ++i) data[i] = T(first + i * step);
    } else {
      const double first = start.to_double()[0], step = delta.to_double()[0];
      for (int64_t i = 0; i < out.numel(); ++i) data[i] = T(first + double(i) * step);
    }
  });
}

class RangeOp final : public Op {
 public:
  explicit RangeOp(const NodeInfo&) {}

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    if (!is_range_dtype(dtype)) fail("does not support dtype {}", dtype_name(dtype));
    for (size_t i = 1; i < 3; ++i)
      if (ctx.dtype(i) != dtype)
        fail("inputs must share one dtype: input {} is {}, input 0 is {}", i,
             dtype_name(ctx.dtype(i)), dtype_name(dtype));
    const int64_t n = range_count(ctx.value(0), ctx.value(1), ctx.value(2));
    if (n <= kMaxFoldedElements) {
      Tensor out = Tensor::zeros(dtype, {n});
      fill_range(ctx.value(0), ctx.value(2), out);
      ctx.set_output_value(0, std::move(out));
    } else {
      ctx.set_output(0, dtype, Shape{n});
    }
  }

  // One operation per element (start + i * delta counted as one, like a running sum).
  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 1);
  }

  void run(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int64_t n = range_count(ctx.input(0), ctx.input(1), ctx.input(2));
    if (out.numel() != n)
      fail_internal("range of {} elements into an output of {}", n, out.numel());
    fill_range(ctx.input(0), ctx.input(2), out);
  }
};

}  // namespace

std::unique_ptr<Op> make_range(const NodeInfo& node) {
  return std::make_unique<RangeOp>(node);
}

}  // namespace strata::ops
