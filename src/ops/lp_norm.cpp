// LpNormalization: x divided by its L1 (p = 1) or L2 (p = 2) norm along `axis` (default -1).
// A zero vector stays zero. Cost: 3 FLOPs per element (abs or square, add, divide).
#include <cmath>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

class LpNormOp final : public Op {
 public:
  explicit LpNormOp(const NodeInfo& node)
      : axis_(node.attr_int("axis", -1)), p_(node.attr_int("p", 2)) {
    if (p_ != 1 && p_ != 2) fail("attribute 'p' must be 1 or 2, got {}", p_);
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    normalize_axis(axis_, x.shape.rank());
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 3);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t axis = normalize_axis(axis_, x.rank());
    const AxisSplit s = split_at(x.shape(), axis, axis + 1);
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      T* out = ctx.output(0).data<T>();
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          double norm = 0;
          for (int64_t j = 0; j < s.n; ++j) {
            const double v = double(in[s.offset(o, j, i)]);
            norm += p_ == 1 ? std::abs(v) : v * v;
          }
          if (p_ == 2) norm = std::sqrt(norm);
          for (int64_t j = 0; j < s.n; ++j) {
            const int64_t at = s.offset(o, j, i);
            out[at] = T(norm > 0 ? double(in[at]) / norm : 0.0);
          }
        }
    });
  }

 private:
  int64_t axis_;
  int64_t p_;
};

}  // namespace

std::unique_ptr<Op> make_lp_norm(const NodeInfo& node) {
  return std::make_unique<LpNormOp>(node);
}

}  // namespace strata::ops
