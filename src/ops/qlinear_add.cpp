// strata's QLinearAdd, which src/passes/fuse_qdq.cpp makes of a quantized graph's residual add,
// DequantizeLinear(A), DequantizeLinear(B) → Add → QuantizeLinear:
//   QLinearAdd(A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp) =
//     saturate(round_half_even(((A - A_zp) · A_scale + (B - B_zp) · B_scale) / C_scale) + C_zp)
// with uint8/int8 A, B and C of one shape and one scale and zero point each. Every step in float32,
// as the three ops it replaces compute it, so the result is theirs to the bit.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/op.h"
#include "ops/requantize.h"

namespace strata::ops {

namespace {

// Input positions: A and B with their scale and zero point, then C's scale and zero point.
constexpr size_t kA = 0, kB = 3, kCScale = 6, kCZero = 7;

// The float32 value of an 8-bit input, as DequantizeLinear computes it.
template <class Q>
float dequantized(Q q, float zero_point, float scale) {
  return (float(q) - zero_point) * scale;
}

class QLinearAddOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    for (size_t operand : {kA, kB}) {
      if (!is_8_bit(ctx.dtype(operand)))
        fail("input {} has dtype {}; int8 or uint8 is needed", operand,
             dtype_name(ctx.dtype(operand)));
      if (ctx.dtype(operand + 2) != ctx.dtype(operand))
        fail("zero point {} has dtype {} but its operand has {}", operand + 2,
             dtype_name(ctx.dtype(operand + 2)), dtype_name(ctx.dtype(operand)));
    }
    for (size_t i : {kA + 1, kB + 1, kCScale})
      if (ctx.dtype(i) != DType::kF32) fail("scale {} has dtype {}", i, dtype_name(ctx.dtype(i)));
    for (size_t i : {kA + 1, kA + 2, kB + 1, kB + 2, kCScale, kCZero})
      if (ctx.shape(i).rank() > 1 || (ctx.shape(i).rank() == 1 && !(ctx.shape(i)[0] == Dim(1))))
        fail("input {} must be one value (scales and zero points are per tensor)", i);
    if (!is_8_bit(ctx.dtype(kCZero)))
      fail("C_zero_point has dtype {}; int8 or uint8 is needed", dtype_name(ctx.dtype(kCZero)));
    if (ctx.shape(kA) != ctx.shape(kB))
      fail("A has shape {} and B {}; one shape is needed", ctx.shape(kA).str(),
           ctx.shape(kB).str());
    ctx.set_output(0, ctx.dtype(kCZero), ctx.shape(kA));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 7);  // two subtractions and products, the sum, scale, round
  }

  void run(KernelContext& ctx) const override {
    const float a_scale = scale(ctx, kA + 1, "A_scale"), b_scale = scale(ctx, kB + 1, "B_scale");
    const float c_scale = scale(ctx, kCScale, "C_scale");
    const float a_zp = float(ctx.input(kA + 2).to_double()[0]);
    const float b_zp = float(ctx.input(kB + 2).to_double()[0]);
    const double c_zp = ctx.input(kCZero).to_double()[0];
    visit_8_bit(ctx.input(kA).dtype(), [&]<class A>(Type<A>) {
      visit_8_bit(ctx.input(kB).dtype(), [&]<class B>(Type<B>) {
        visit_8_bit(ctx.output(0).dtype(), [&]<class C>(Type<C>) {
          const A* a = ctx.input(kA).data<A>();
          const B* b = ctx.input(kB).data<B>();
          C* c = ctx.output(0).data<C>();
          for (int64_t i = 0; i < ctx.output(0).numel(); ++i) {
            const float sum = dequantized(a[i], a_zp, a_scale) + dequantized(b[i], b_zp, b_scale);
            c[i] = C(std::clamp(std::nearbyint(double(sum / c_scale)) + c_zp,
                                double(std::numeric_limits<C>::lowest()),
                                double(std::numeric_limits<C>::max())));
          }
        });
      });
    });
  }

 private:
  static float scale(const KernelContext& ctx, size_t i, const char* name) {
    const std::vector<double> s = ctx.input(i).to_double();
    check_scales(s, name);
    return float(s[0]);
  }
};

}  // namespace

std::unique_ptr<Op> make_qlinear_add(const NodeInfo&) {
  return std::make_unique<QLinearAddOp>();
}

}  // namespace strata::ops
