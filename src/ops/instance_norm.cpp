// InstanceNormalization: each (n, c) plane of X [N, C, D1..Dn] normalised by its own mean and
// variance, then y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c].
// Cost per element: mean 1, variance 3 (subtract, square, add), normalise 2 (subtract, multiply),
// scale 1, shift 1 = 8 FLOPs; param_bytes = bytes of the constant scale and B.
#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

class InstanceNormOp final : public Op {
 public:
  explicit InstanceNormOp(const NodeInfo& node) : epsilon_(node.attr_float("epsilon", 1e-5f)) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() < 2) fail("input X must have rank at least 2, got shape {}", x.shape.str());
    static const char* const kNames[] = {"scale", "B"};
    for (size_t i = 1; i <= 2; ++i) {
      const Meta& p = ctx.input(i);
      if (p.dtype != x.dtype)
        fail("input '{}' has dtype {} but X has {}", kNames[i - 1], dtype_name(p.dtype),
             dtype_name(x.dtype));
      const bool size_differs = p.shape.rank() == 1 && p.shape[0].is_static() &&
                                x.shape[1].is_static() && p.shape[0] != x.shape[1];
      if (p.shape.rank() != 1 || size_differs)
        fail("input '{}' has shape {} but needs one value per channel of X {}", kNames[i - 1],
             p.shape.str(), x.shape.str());
    }
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = elementwise_cost(ctx, 8);
    for (size_t i = 1; i <= 2; ++i)
      if (ctx.is_constant_input(i)) c.param_bytes += ctx.bytes_in(i);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t channels = x.dim(1);
    const int64_t plane = product(spatial_dims(x.shape()));
    if (ctx.input(1).numel() != channels || ctx.input(2).numel() != channels)
      fail("scale and B need {} values, one per channel", channels);
    const std::vector<double> scale = ctx.input(1).to_double(), bias = ctx.input(2).to_double();
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (int64_t n = 0; n < x.dim(0); ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (n * channels + c) * plane;
          const T* in = x.data<T>() + base;
          T* out = y.data<T>() + base;
          const Moments m = moments(in, plane, double(epsilon_));
          const double a = scale[size_t(c)] * m.inv_std_dev;
          for (int64_t i = 0; i < plane; ++i)
            out[i] = T((double(in[i]) - m.mean) * a + bias[size_t(c)]);
        }
      }
    });
  }

 private:
  float epsilon_;
};

}  // namespace

std::unique_ptr<Op> make_instance_norm(const NodeInfo& node) {
  return std::make_unique<InstanceNormOp>(node);
}

}  // namespace strata::ops
