// GridSample (opsets 16 and 20): Y[n, c, p] samples X[n, c] at the location grid[n, p] gives, its
// last axis holding normalised coordinates in [-1, 1] for the spatial axes in reverse order (x,
// then y, then z). align_corners maps -1 and 1 to the centres of the corner elements (else to
// their outer edges). mode: linear / bilinear (2^r neighbours), nearest, cubic / bicubic (4^r
// neighbours, Keys' kernel with a = -0.75). padding_mode for locations and neighbours outside X:
// zeros, border (clamped) or reflection (mirrored at the borders).
// Cost per output element: 2^r (linear), 4^r (cubic) or 1 (nearest) multiply-adds, counted 2 FLOPs
// each, plus 4 per spatial axis for the coordinate.
#include "ops/grid_sample.h"

#include <algorithm>
#include <cmath>

namespace strata::ops {

namespace {

using Mode = GridSampleMode;
using Padding = GridSamplePadding;

// Keys' cubic convolution weights for the 4 neighbours at offset t in [0, 1).
void cubic_weights(double t, double w[4]) {
  const double a = -0.75;
  auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };  // 1 < |x| < 2
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

class GridSampleOp final : public Op {
 public:
  explicit GridSampleOp(const NodeInfo& node)
      : align_corners_(node.attr_int("align_corners", 0) != 0) {
    const std::string mode = node.attr_string("mode", node.opset() < 20 ? "bilinear" : "linear");
    if (mode == "linear" || mode == "bilinear")
      mode_ = Mode::kLinear;
    else if (mode == "nearest")
      mode_ = Mode::kNearest;
    else if (mode == "cubic" || mode == "bicubic")
      mode_ = Mode::kCubic;
    else
      fail("attribute 'mode' must be linear, nearest or cubic, not '{}'", mode);
    const std::string padding = node.attr_string("padding_mode", "zeros");
    if (padding == "zeros")
      padding_ = Padding::kZeros;
    else if (padding == "border")
      padding_ = Padding::kBorder;
    else if (padding == "reflection")
      padding_ = Padding::kReflection;
    else
      fail("attribute 'padding_mode' must be zeros, border or reflection, not '{}'", padding);
  }

  GridSampleAttributes attributes() const { return {mode_, padding_, align_corners_}; }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    const Meta& grid = ctx.input(1);
    if (!is_float(x.dtype) || !is_float(grid.dtype))
      fail("X and grid must be float tensors, got {} and {}", dtype_name(x.dtype),
           dtype_name(grid.dtype));
    const int64_t r = x.shape.rank() - 2;
    if (r < 1 || grid.shape.rank() != r + 2)
      fail("grid of shape {} does not fit X {} (it needs [N, D1_out..Dr_out, r])", grid.shape.str(),
           x.shape.str());
    const Dim& last = grid.shape[grid.shape.rank() - 1];
    if (last.is_static() && last.value() != r)
      fail("grid's last axis holds {} coordinates for {} spatial axes", last.value(), r);
    if (mode_ == Mode::kCubic && r != 2) fail("cubic mode needs 2 spatial axes, X has {}", r);
    Shape out{x.shape[0], x.shape[1]};
    for (int64_t d = 1; d <= r; ++d) out.push_back(grid.shape[d]);
    ctx.set_output(0, x.dtype, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const int64_t r = ctx.input(0).shape.rank() - 2;
    const double taps = mode_ == Mode::kNearest ? 1 : std::pow(mode_ == Mode::kCubic ? 4 : 2, r);
    return elementwise_cost(ctx, 2 * taps + 4 * double(r));
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    Tensor& y = ctx.output(0);
    const int64_t r = x.rank() - 2, N = x.dim(0), C = x.dim(1);
    if (grid.dim(0) != N) fail("grid has batch {} but X has {}", grid.dim(0), N);
    std::vector<int64_t> dims(static_cast<size_t>(r)), strides(static_cast<size_t>(r));
    int64_t plane = 1;
    for (int64_t d = r - 1; d >= 0; --d) {
      dims[size_t(d)] = x.dim(d + 2);
      strides[size_t(d)] = plane;
      plane *= dims[size_t(d)];
    }
    int64_t points = 1;
    for (int64_t d = 1; d <= r; ++d) points *= grid.dim(d);
    const std::vector<double> g = grid.to_double();
    const std::vector<double> in = x.to_double();
    std::vector<double> out(size_t(y.numel()));
    std::vector<double> coord(static_cast<size_t>(r));
    const int64_t span = mode_ == Mode::kCubic ? 4 : (mode_ == Mode::kLinear ? 2 : 1);
    int64_t corners = 1;
    for (int64_t d = 0; d < r; ++d) corners *= span;
    std::vector<std::vector<double>> weights(static_cast<size_t>(r),
                                             std::vector<double>(static_cast<size_t>(span)));
    std::vector<std::vector<int64_t>> index(static_cast<size_t>(r),
                                            std::vector<int64_t>(static_cast<size_t>(span)));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t p = 0; p < points; ++p) {
        const double* normalised = &g[size_t((n * points + p) * r)];
        for (int64_t d = 0; d < r; ++d)  // the grid lists x (the last axis) first
          coord[size_t(d)] = location(normalised[r - 1 - d], dims[size_t(d)]);
        for (int64_t d = 0; d < r; ++d)
          taps(coord[size_t(d)], dims[size_t(d)], weights[size_t(d)], index[size_t(d)]);
        for (int64_t c = 0; c < C; ++c) {
          const double* data = &in[size_t((n * C + c) * plane)];
          double sum = 0;
          for (int64_t k = 0; k < corners; ++k) {
            double w = 1;
            int64_t offset = 0;
            bool outside = false;
            for (int64_t d = 0, rest = k; d < r; ++d, rest /= span) {
              const int64_t t = rest % span;
              w *= weights[size_t(d)][size_t(t)];
              const int64_t i = index[size_t(d)][size_t(t)];
              if (i < 0) outside = true;  // zeros padding
              offset += i * strides[size_t(d)];
            }
            if (!outside) sum += w * data[offset];
          }
          out[size_t((n * C + c) * points + p)] = sum;
        }
      }
    visit_float(y.dtype(), [&]<class T>(Type<T>) {
      for (size_t i = 0; i < out.size(); ++i) y.data<T>()[i] = T(float(out[i]));
    });
  }

 private:
  // The un-normalised location along an axis of `size`, rounded for nearest and brought inside
  // the borders by the padding mode.
  double location(double normalised, int64_t size) const {
    double v = align_corners_ ? (normalised + 1) / 2 * double(size - 1)
                              : ((normalised + 1) * double(size) - 1) / 2;
    if (mode_ == Mode::kNearest) v = std::nearbyint(v);  // half to even, at every rank
    const double lo = align_corners_ ? 0.0 : -0.5,
                 hi = align_corners_ ? double(size - 1) : size - 0.5;
    if (v < lo || v > hi) {
      if (padding_ == Padding::kBorder) v = std::clamp(v, 0.0, double(size - 1));
      if (padding_ == Padding::kReflection) v = reflect(v, lo, hi);
    }
    return v;
  }

  static double reflect(double v, double lo, double hi) {
    const double range = hi - lo;
    if (range <= 0) return lo;
    if (v < lo) {
      const double dx = lo - v;
      const int64_t k = int64_t(dx / range);
      const double rem = dx - double(k) * range;
      return k % 2 == 0 ? lo + rem : hi - rem;
    }
    if (v > hi) {
      const double dx = v - hi;
      const int64_t k = int64_t(dx / range);
      const double rem = dx - double(k) * range;
      return k % 2 == 0 ? hi - rem : lo + rem;
    }
    return v;
  }

  // The neighbours of location v along an axis of `size` and their weights; an index of -1 marks
  // a neighbour outside X with zeros padding.
  void taps(double v, int64_t size, std::vector<double>& w, std::vector<int64_t>& at) const {
    int64_t first = 0;
    if (mode_ == Mode::kNearest) {
      w[0] = 1;
      at[0] = neighbour(int64_t(v), size);
      return;
    }
    const double base = std::floor(v), t = v - base;
    if (mode_ == Mode::kLinear) {
      w[0] = 1 - t;
      w[1] = t;
      first = int64_t(base);
    } else {
      cubic_weights(t, w.data());
      first = int64_t(base) - 1;
    }
    for (size_t k = 0; k < w.size(); ++k) at[k] = neighbour(first + int64_t(k), size);
  }

  int64_t neighbour(int64_t i, int64_t size) const {
    if (i >= 0 && i < size) return i;
    switch (padding_) {
      case Padding::kZeros: return -1;
      case Padding::kBorder: return std::clamp<int64_t>(i, 0, size - 1);
      case Padding::kReflection: {
        const double lo = align_corners_ ? 0.0 : -0.5;
        const double hi = align_corners_ ? double(size - 1) : size - 0.5;
        return std::clamp<int64_t>(int64_t(reflect(double(i), lo, hi)), 0, size - 1);
      }
    }
    return -1;
  }

  bool align_corners_;
  Mode mode_ = Mode::kLinear;
  Padding padding_ = Padding::kZeros;
};

}  // namespace

std::optional<GridSampleAttributes> grid_sample_attributes(const Op& op) {
  const auto* sample = dynamic_cast<const GridSampleOp*>(&op);
  if (!sample) return std::nullopt;
  return sample->attributes();
}

std::unique_ptr<Op> make_grid_sample(const NodeInfo& node) {
  return std::make_unique<GridSampleOp>(node);
}

}  // namespace strata::ops
