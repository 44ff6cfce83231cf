// Slice: a strided window per listed axis. starts/ends/axes are attributes before opset 10;
// from 10 they are inputs, with optional axes and steps (negative steps walk backwards).
// Out-of-range starts and ends are clamped exactly as the ONNX spec describes.
#include "ops/slice.h"

#include <algorithm>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

// The slice as given, one entry per sliced axis (axes normalised).
struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;

  bool whole_axis(size_t i) const {
    return starts[i] == 0 && steps[i] == 1 && ends[i] == INT64_MAX;
  }
};

// One axis of the window: first index, step and element count.
struct AxisWindow {
  int64_t start = 0;
  int64_t step = 1;
  int64_t count = 0;
};

AxisWindow window(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  // A step longer than the axis takes at most one element; bounding it avoids overflow.
  const int64_t max_step = std::max<int64_t>(dim, 1);
  step = std::clamp(step, -max_step, max_step);
  AxisWindow w;
  w.step = step;
  if (step > 0) {
    w.start = std::clamp(start, int64_t(0), dim);
    end = std::clamp(end, int64_t(0), dim);
    w.count = end > w.start ? (end - w.start - 1) / step + 1 : 0;
  } else {
    w.start = std::clamp(start, int64_t(0), dim - 1);
    end = std::clamp(end, int64_t(-1), dim - 1);
    w.count = w.start > end ? (w.start - end - 1) / -step + 1 : 0;
  }
  if (w.count == 0) w.start = 0;  // an empty window reads nothing
  return w;
}

class SliceOp final : public Op {
 public:
  explicit SliceOp(const NodeInfo& node) {
    if (node.opset() < 10) {
      starts_attr_ = node.required_ints("starts");
      ends_attr_ = node.required_ints("ends");
      axes_attr_ = optional_ints_attr(node, "axes");
    }
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const SliceParams p = params(ctx, in.rank());
    Shape out = in;
    for (size_t i = 0; i < p.axes.size(); ++i) {
      if (p.whole_axis(i)) continue;  // keeps a symbolic dim symbolic
      const int64_t a = p.axes[i];
      out[a] = window(p.starts[i], p.ends[i], p.steps[i], in[a].value()).count;
    }
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    const SliceView v = view(ctx, src.shape());
    if (v.shape != dst.shape()) fail("slice shape changed between infer and run");
    strided_copy(src.raw(), v.offset, v.strides, dst.shape(), dst.raw(), dtype_size(src.dtype()));
  }

  template <class Context>
  SliceView view(const Context& ctx, const std::vector<int64_t>& in_shape) const {
    const SliceParams p = params(ctx, int64_t(in_shape.size()));
    SliceView v;
    v.shape = in_shape;
    v.strides = row_major_strides(in_shape);
    for (size_t i = 0; i < p.axes.size(); ++i) {
      const size_t a = size_t(p.axes[i]);
      const AxisWindow w = window(p.starts[i], p.ends[i], p.steps[i], in_shape[a]);
      v.shape[a] = w.count;
      v.offset += w.start * v.strides[a];
      v.strides[a] *= w.step;
    }
    return v;
  }

 private:
  template <class Context>
  SliceParams params(const Context& ctx, int64_t rank) const {
    auto required = [&](const std::optional<std::vector<int64_t>>& attr, size_t index,
                        const char* name) {
      std::optional<std::vector<int64_t>> v = attr_or_input_ints(attr, ctx, index);
      if (!v) fail("input '{}' is missing", name);
      return *v;
    };
    SliceParams p;
    p.starts = required(starts_attr_, 1, "starts");
    p.ends = required(ends_attr_, 2, "ends");
    const size_t n = p.starts.size();
    if (p.ends.size() != n) fail("'starts' has {} entries but 'ends' has {}", n, p.ends.size());
    std::vector<int64_t> axes(n);
    for (size_t i = 0; i < n; ++i) axes[i] = int64_t(i);
    axes = attr_or_input_ints(axes_attr_, ctx, 3).value_or(axes);
    if (axes.size() != n) fail("'axes' has {} entries but 'starts' has {}", axes.size(), n);
    p.axes = normalize_axes(axes, rank);
    p.steps = attr_or_input_ints(std::nullopt, ctx, 4).value_or(std::vector<int64_t>(n, 1));
    if (p.steps.size() != n) fail("'steps' has {} entries but 'starts' has {}", p.steps.size(), n);
    for (int64_t step : p.steps)
      if (step == 0) fail("'steps' must not contain 0");
    return p;
  }

  std::optional<std::vector<int64_t>> starts_attr_, ends_attr_, axes_attr_;
};

}  // namespace

std::optional<SliceView> slice_view(const Op& op, const InferContext& ctx,
                                    const std::vector<int64_t>& in_shape) {
  const auto* slice = dynamic_cast<const SliceOp*>(&op);
  if (!slice) return std::nullopt;
  return slice->view(ctx, in_shape);
}

std::unique_ptr<Op> make_slice(const NodeInfo& node) {
  return std::make_unique<SliceOp>(node);
}

}  // namespace strata::ops
