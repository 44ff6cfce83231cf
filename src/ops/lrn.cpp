// LRN (local response normalisation across channels) of X [N, C, D1..Dn]:
// y = x / (bias + alpha / size * sum of x^2 over channels [c - floor((size-1)/2),
// c + ceil((size-1)/2)] clipped to [0, C))^beta.
// Cost per element: 2 * size FLOPs for the windowed sum of squares (square and add), then 4 more
// (scale by alpha/size, add bias, power, divide).
#include "ops/lrn.h"

#include <cmath>

#include "ops/conv_geometry.h"

namespace strata::ops {

namespace {

class LrnOp final : public Op {
 public:
  explicit LrnOp(const NodeInfo& node)
      : size_(node.required_int("size")),
        alpha_(node.attr_float("alpha", 1e-4f)),
        beta_(node.attr_float("beta", 0.75f)),
        bias_(node.attr_float("bias", 1.0f)) {
    if (size_ <= 0) fail("attribute 'size' must be positive, got {}", size_);
  }

  LrnAttributes attributes() const { return {size_, alpha_, beta_, bias_}; }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    if (x.shape.rank() < 2) fail("input X must have rank at least 2, got shape {}", x.shape.str());
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 2 * double(size_) + 4);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const int64_t channels = x.dim(1);
    const int64_t plane = product(spatial_dims(x.shape()));
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    const double scale = double(alpha_) / double(size_);
    std::vector<double> squares(static_cast<size_t>(plane));
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      for (int64_t n = 0; n < x.dim(0); ++n) {
        const T* sample = x.data<T>() + n * channels * plane;
        for (int64_t c = 0; c < channels; ++c) {
          std::fill(squares.begin(), squares.end(), 0.0);
          const int64_t first = std::max<int64_t>(0, c - before);
          const int64_t last = std::min(channels - 1, c + after);
          for (int64_t k = first; k <= last; ++k) {
            const T* in = sample + k * plane;
            for (int64_t i = 0; i < plane; ++i) squares[size_t(i)] += double(in[i]) * double(in[i]);
          }
          const T* in = sample + c * plane;
          T* out = y.data<T>() + (n * channels + c) * plane;
          for (int64_t i = 0; i < plane; ++i) {
            const double denominator =
                std::pow(double(bias_) + scale * squares[size_t(i)], double(beta_));
            out[i] = T(double(in[i]) / denominator);
          }
        }
      }
    });
  }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

}  // namespace

std::optional<LrnAttributes> lrn_attributes(const Op& op) {
  const auto* lrn = dynamic_cast<const LrnOp*>(&op);
  if (!lrn) return std::nullopt;
  return lrn->attributes();
}

std::unique_ptr<Op> make_lrn(const NodeInfo& node) {
  return std::make_unique<LrnOp>(node);
}

}  // namespace strata::ops
