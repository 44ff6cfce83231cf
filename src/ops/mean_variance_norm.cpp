// MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9), mean and variance taken over
// `axes` (default [0, 2, 3]: per channel of an NCHW tensor), as ONNX's function body defines it
// (variance = mean(x²) - mean(x)²). Cost: 6 FLOPs per element (square, two sums, subtract,
// divide, and the statistics' share).
#include <cmath>

#include "ops/layout_util.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

constexpr double kEpsilon = 1e-9;  // the function body's constant

class MeanVarianceNormOp final : public Op {
 public:
  explicit MeanVarianceNormOp(const NodeInfo& node) : axes_(node.attr_ints("axes", {0, 2, 3})) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    normalize_axes(axes_, x.shape.rank(), "axis in 'axes'");
    ctx.set_output(0, x.dtype, x.shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 6);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const std::vector<int64_t> axes = normalize_axes(axes_, x.rank(), "axis in 'axes'");
    // Each element's group: its index with the reduced axes dropped.
    std::vector<bool> reduced(size_t(x.rank()), false);
    for (int64_t a : axes) reduced[size_t(a)] = true;
    std::vector<int64_t> group(size_t(x.numel()));
    int64_t groups = 1;
    {
      std::vector<int64_t> group_stride(size_t(x.rank()), 0);
      for (int64_t d = x.rank() - 1; d >= 0; --d)
        if (!reduced[size_t(d)]) {
          group_stride[size_t(d)] = groups;
          groups *= x.dim(d);
        }
      std::vector<int64_t> index(size_t(x.rank()), 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        int64_t g = 0;
        for (size_t d = 0; d < index.size(); ++d) g += index[d] * group_stride[d];
        group[size_t(i)] = g;
        for (int64_t d = x.rank() - 1; d >= 0 && ++index[size_t(d)] == x.dim(d); --d)
          index[size_t(d)] = 0;
      }
    }
    const double count = groups ? double(x.numel()) / double(groups) : 1;
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* in = x.data<T>();
      T* out = ctx.output(0).data<T>();
      std::vector<double> sum(size_t(groups), 0), sum_sq(size_t(groups), 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const double v = double(in[i]);
        sum[size_t(group[size_t(i)])] += v;
        sum_sq[size_t(group[size_t(i)])] += v * v;
      }
      for (int64_t i = 0; i < x.numel(); ++i) {
        const size_t g = size_t(group[size_t(i)]);
        const double mean = sum[g] / count;
        const double variance = std::max(0.0, sum_sq[g] / count - mean * mean);
        out[i] = from_acc<T>((double(in[i]) - mean) / (std::sqrt(variance) + kEpsilon));
      }
    });
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<Op> make_mean_variance_norm(const NodeInfo& node) {
  return std::make_unique<MeanVarianceNormOp>(node);
}

}  // namespace strata::ops
