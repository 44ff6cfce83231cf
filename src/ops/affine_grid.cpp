// AffineGrid (opset 20): the sampling grid of an affine transform, for GridSample. theta
// [N, 2, 3] (2-D) or [N, 3, 4] (3-D); size: the 1-D input [N, C, H, W] or [N, C, D, H, W].
// Output [N, H, W, 2] or [N, D, H, W, 3]: theta times the base grid point (x, y[, z], 1), where
// x runs over W in [-1, 1]: at pixel centres ((2i + 1) / W - 1) by default, at the corners
// (-1 + 2i / (W - 1)) with align_corners = 1. Cost: per output point, 2 FLOPs per theta entry.
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

class AffineGridOp final : public Op {
 public:
  explicit AffineGridOp(const NodeInfo& node)
      : align_corners_(node.attr_int("align_corners", 0) != 0) {}

  void infer(InferContext& ctx) const override {
    const Meta& theta = ctx.input(0);
    if (!is_float(theta.dtype)) fail("does not support dtype {}", dtype_name(theta.dtype));
    const std::vector<int64_t> size = ctx.ints(1);
    if (size.size() != 4 && size.size() != 5)
      fail("input 'size' must hold 4 (N, C, H, W) or 5 (N, C, D, H, W) values, got {}",
           size.size());
    const int64_t dims = int64_t(size.size()) - 2;
    if (theta.shape.rank() != 3 || theta.shape[1] != Dim(dims) || theta.shape[2] != Dim(dims + 1))
      fail("input 'theta' of shape {} must be [N, {}, {}]", theta.shape.str(), dims, dims + 1);
    if (theta.shape[0].is_static() && theta.shape[0].value() != size[0])
      fail("input 'theta' has {} transforms but 'size' says N = {}", theta.shape[0].value(),
           size[0]);
    Shape out{size[0]};
    for (size_t d = 2; d < size.size(); ++d) {
      if (size[d] < 1) fail("input 'size' values must be positive, got {}", size[d]);
      out.push_back(size[d]);
    }
    out.push_back(dims);
    ctx.set_output(0, theta.dtype, out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const double dims = double(ctx.output(0).shape[ctx.output(0).shape.rank() - 1].value());
    return elementwise_cost(ctx, 2 * (dims + 1));
  }

  void run(KernelContext& ctx) const override {
    const Tensor& theta = ctx.input(0);
    const std::vector<int64_t> size = ctx.input(1).to_int64();
    const int64_t dims = int64_t(size.size()) - 2;
    // Spatial sizes fastest-last: (D,) H, W; the grid's coordinate order is x (W), y (H), z (D).
    const std::vector<int64_t> spatial(size.begin() + 2, size.end());
    int64_t points = 1;
    for (int64_t s : spatial) points *= s;
    auto coordinate = [&](int64_t i, int64_t n) {
      if (align_corners_) return n > 1 ? -1 + 2 * double(i) / double(n - 1) : 0.0;
      return (2 * double(i) + 1) / double(n) - 1;
    };
    Tensor& y = ctx.output(0);
    visit_float(theta.dtype(), [&]<class T>(Type<T>) {
      const T* th = theta.data<T>();
      T* out = y.data<T>();
      std::vector<double> base(size_t(dims + 1));
      for (int64_t n = 0; n < size[0]; ++n)
        for (int64_t p = 0; p < points; ++p) {
          int64_t rest = p;
          for (int64_t d = dims - 1; d >= 0; --d) {  // spatial axis d is coordinate dims-1-d
            const int64_t extent = spatial[size_t(d)];
            base[size_t(dims - 1 - d)] = coordinate(rest % extent, extent);
            rest /= extent;
          }
          base[size_t(dims)] = 1;
          for (int64_t r = 0; r < dims; ++r) {
            double acc = 0;
            for (int64_t c = 0; c <= dims; ++c)
              acc += double(th[(n * dims + r) * (dims + 1) + c]) * base[size_t(c)];
            out[(n * points + p) * dims + r] = from_acc<T>(acc);
          }
        }
    });
  }

 private:
  bool align_corners_;
};

}  // namespace

std::unique_ptr<Op> make_affine_grid(const NodeInfo& node) {
  return std::make_unique<AffineGridOp>(node);
}

}  // namespace strata::ops
