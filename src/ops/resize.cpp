// Resize (opsets 10-19) and Upsample (opsets 7-9, deprecated; Resize-10's rule, with `scales`
// an attribute before opset 9): samples the input on a grid of the output's size. Each output
// coordinate maps back to an input coordinate (coordinate_transformation_mode), where nearest,
// n-linear or n-cubic interpolation reads the neighbouring input elements. The interpolation is
// separable: per axis we compute "taps" (input index, weight) for every output coordinate, and an
// output element is the sum over the product of its axes' taps.
#include "ops/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/checked.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class Policy { kStretch, kNotLarger, kNotSmaller };

// How one axis is resized: its lengths and the scale its coordinates map with.
struct AxisResize {
  Dim out;            // output length
  double scale = 1;   // output/input scale used to map coordinates (0 when not yet known)
  double length = 0;  // the resized length as a real number: scale * input (or the given size)
};

// The taps of one axis: for output coordinate x, taps x*count .. x*count+count-1.
struct AxisTaps {
  int64_t count = 0;
  std::vector<int64_t> index;
  std::vector<double> weight;
  std::vector<bool> outside;  // tf_crop_and_resize: the coordinate falls outside the input
};

// Whether every output coordinate of an axis reads its own input coordinate alone: one tap there
// of weight 1, any others of weight 0 (a scale of 1 in every mode but tf_crop_and_resize's
// outside points). Such an axis needs one tap per coordinate, not the mode's 2 or 4.
bool is_identity(const AxisTaps& t, int64_t in_length) {
  const int64_t out_length = int64_t(t.outside.size());
  if (out_length != in_length) return false;
  for (int64_t x = 0; x < out_length; ++x) {
    if (t.outside[size_t(x)]) return false;
    int64_t own = 0;
    for (int64_t k = 0; k < t.count; ++k) {
      const size_t j = size_t(x * t.count + k);
      if (t.weight[j] == 1 && t.index[j] == x)
        ++own;
      else if (t.weight[j] != 0)
        return false;
    }
    if (own != 1) return false;
  }
  return true;
}

// One tap per coordinate, on itself with weight 1.
AxisTaps identity_taps(int64_t length) {
  AxisTaps t;
  t.count = 1;
  for (int64_t x = 0; x < length; ++x) t.index.push_back(x);
  t.weight.assign(size_t(length), 1.0);
  t.outside.assign(size_t(length), false);
  return t;
}

// Cubic convolution kernel (Keys 1981) with coefficient a, at distance x.
double cubic_kernel(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Converts an interpolated value to T: integers round to nearest and saturate.
template <class T>
T from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    v = std::round(v);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return T(v);
  } else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    return T(float(v));
  } else {
    return T(v);
  }
}

class ResizeOp final : public Op {
 public:
  explicit ResizeOp(const NodeInfo& node)
      : opset_(node.op_type() == "Upsample" ? std::min<int64_t>(node.opset(), 10) : node.opset()) {
    if (node.op_type() == "Upsample" && node.opset() < 9) {
      for (float s : node.attr_floats("scales")) attr_scales_.push_back(s);
      if (attr_scales_.empty()) fail("attribute 'scales' is required before opset 9");
    }
    const std::string mode = node.attr_string("mode", "nearest");
    if (mode == "nearest") {
      mode_ = ResizeMode::kNearest;
    } else if (mode == "linear") {
      mode_ = ResizeMode::kLinear;
    } else if (mode == "cubic" && opset_ >= 11) {
      mode_ = ResizeMode::kCubic;
    } else {
      fail("attribute 'mode' '{}' is not supported in opset {}", mode, opset_);
    }
    if (opset_ < 11) {  // Resize-10 is Upsample's rule: x_original = x / scale, nearest floors
      transform_ = "asymmetric";
      nearest_mode_ = "floor";
      return;
    }
    transform_ = node.attr_string("coordinate_transformation_mode", "half_pixel");
    const bool known_transform = transform_ == "half_pixel" || transform_ == "pytorch_half_pixel" ||
                                 transform_ == "align_corners" || transform_ == "asymmetric" ||
                                 transform_ == "tf_crop_and_resize" ||
                                 (transform_ == "tf_half_pixel_for_nn" && opset_ < 13) ||
                                 (transform_ == "half_pixel_symmetric" && opset_ >= 19);
    if (!known_transform)
      fail("attribute 'coordinate_transformation_mode' '{}' is not supported in opset {}",
           transform_, opset_);
    nearest_mode_ = node.attr_string("nearest_mode", "round_prefer_floor");
    if (nearest_mode_ != "round_prefer_floor" && nearest_mode_ != "round_prefer_ceil" &&
        nearest_mode_ != "floor" && nearest_mode_ != "ceil")
      fail("attribute 'nearest_mode' '{}' is not supported", nearest_mode_);
    cubic_a_ = node.attr_float("cubic_coeff_a", -0.75f);
    exclude_outside_ = node.attr_int("exclude_outside", 0) != 0;
    extrapolation_value_ = node.attr_float("extrapolation_value", 0.0f);
    if (opset_ >= 18) {
      antialias_ = node.attr_int("antialias", 0) != 0;
      if (node.has_attr("axes")) axes_ = node.attr_ints("axes");
      const std::string policy = node.attr_string("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") {
        policy_ = Policy::kStretch;
      } else if (policy == "not_larger") {
        policy_ = Policy::kNotLarger;
      } else if (policy == "not_smaller") {
        policy_ = Policy::kNotSmaller;
      } else {
        fail("attribute 'keep_aspect_ratio_policy' '{}' is not supported", policy);
      }
    }
  }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    const bool supported = mode_ == ResizeMode::kNearest ? visit_all(dtype, [](auto) {})
                                                         : visit_numeric(dtype, [](auto) {});
    if (!supported) fail("does not support dtype {} in this mode", dtype_name(dtype));
    const std::vector<double> scales = target_scales(ctx);
    const bool sizes_given = opset_ >= 11 && ctx.has_input(3) && !(ctx.shape(3).numel() == Dim(0));
    if (!scales.empty() && sizes_given) fail("only one of 'scales' and 'sizes' may be given");
    const std::vector<int64_t> sizes = scales.empty() ? target_sizes(ctx) : std::vector<int64_t>{};
    const std::vector<AxisResize> plan = resolve(ctx.shape(0), scales, sizes);
    Shape out;
    for (const AxisResize& axis : plan) out.push_back(axis.out);
    ctx.set_output(0, dtype, std::move(out));
  }

  // FLOPs per output element by mode, d being the number of axes whose length changes:
  // nearest 0 (a copy), linear 2^d taps and cubic 4^d taps at 2 FLOPs (multiply, add) each.
  // Antialiasing widens the taps when downscaling; that is not counted.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    int64_t resized = 0;
    for (int64_t d = 0; d < ctx.input(0).shape.rank(); ++d)
      if (ctx.input(0).shape[d].value() != ctx.output(0).shape[d].value()) ++resized;
    const double taps = mode_ == ResizeMode::kNearest  ? 0
                        : mode_ == ResizeMode::kLinear ? std::pow(2.0, double(resized))
                                                       : std::pow(4.0, double(resized));
    return elementwise_cost(ctx, 2 * taps);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    bool copy = true;  // every axis an identity: the output is the input
    const std::vector<AxisTaps> taps = axes_taps(ctx, &copy);
    if (copy) {  // detection models' transform resizes an image already at the model's size
      if (in.nbytes()) std::memcpy(out.raw(), in.raw(), in.nbytes());
      return;
    }
    visit_all(in.dtype(), [&]<class T>(Type<T>) { interpolate<T>(in, taps, out); });
  }

  // The taps of every axis for the inputs and output in `ctx` (input 0 read for its shape only);
  // `identity` tells whether every axis maps each coordinate to itself.
  std::vector<AxisTaps> axes_taps(const KernelContext& ctx, bool* identity) const {
    const Tensor& in = ctx.input(0);
    const Tensor& out = ctx.output(0);
    std::vector<double> scales;
    std::vector<int64_t> sizes;
    if (!attr_scales_.empty()) scales = attr_scales_;
    if (ctx.has_input(scales_input())) scales = ctx.input(scales_input()).to_double();
    if (opset_ >= 11 && ctx.has_input(3)) sizes = ctx.input(3).to_int64();
    if (!scales.empty() && !sizes.empty()) fail("only one of 'scales' and 'sizes' may be given");
    const std::vector<AxisResize> plan = resolve(Shape::of(in.shape()), scales, sizes);
    const std::vector<double> roi = roi_per_axis(ctx, in.rank());
    std::vector<AxisTaps> taps;
    *identity = true;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (plan[size_t(d)].out.value() != out.dim(d))
        fail_internal("resize to {} on axis {}, but the output has {}", plan[size_t(d)].out.value(),
                      d, out.dim(d));
      taps.push_back(
          axis_taps(plan[size_t(d)], in.dim(d), roi[size_t(d)], roi[size_t(d + in.rank())]));
      if (is_identity(taps.back(), in.dim(d)))
        taps.back() = identity_taps(in.dim(d));
      else
        *identity = false;
    }
    return taps;
  }

 private:
  size_t scales_input() const { return opset_ < 11 ? 1 : 2; }

  // The axes that scales, sizes and roi refer to.
  std::vector<int64_t> target_axes(int64_t rank) const {
    if (axes_.empty()) {
      std::vector<int64_t> all(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) all[size_t(d)] = d;
      return all;
    }
    return normalize_axes(axes_, rank, "axis in 'axes'");
  }

  // The scales input's values, or empty when it is absent or an empty tensor.
  std::vector<double> target_scales(const InferContext& ctx) const {
    if (!attr_scales_.empty()) return attr_scales_;
    const size_t i = scales_input();
    if (!ctx.has_input(i)) return {};
    const Dim n = ctx.shape(i).numel();
    if (n.is_static() && n.value() == 0) return {};
    if (!is_float(ctx.dtype(i)))
      fail("input 'scales' must be float, not {}", dtype_name(ctx.dtype(i)));
    return ctx.doubles(i);
  }

  std::vector<int64_t> target_sizes(const InferContext& ctx) const {
    if (opset_ < 11 || !ctx.has_input(3)) fail("one of the inputs 'scales' and 'sizes' is needed");
    if (ctx.dtype(3) != DType::kI64)
      fail("input 'sizes' must be int64, not {}", dtype_name(ctx.dtype(3)));
    return ctx.ints(3);
  }

  // Output length and mapping scale of every axis, from scales (when not empty) or sizes.
  std::vector<AxisResize> resolve(const Shape& in, const std::vector<double>& scales,
                                  const std::vector<int64_t>& sizes) const {
    const int64_t rank = in.rank();
    const std::vector<int64_t> axes = target_axes(rank);
    const bool by_scale = !scales.empty();
    const size_t given = by_scale ? scales.size() : sizes.size();
    if (given != axes.size())
      fail("input '{}' has {} values, expected {}", by_scale ? "scales" : "sizes", given,
           axes.size());

    std::vector<AxisResize> plan(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      plan[size_t(d)].out = in[d];
      if (in[d].is_static()) plan[size_t(d)].length = double(in[d].value());
    }
    if (by_scale) {
      for (size_t j = 0; j < axes.size(); ++j)
        plan[size_t(axes[j])] = scaled_axis(in[axes[j]], scales[j]);
      return plan;
    }
    for (int64_t size : sizes)
      if (size < 0) fail("input 'sizes' has a negative size {}", size);
    if (policy_ == Policy::kStretch) {
      for (size_t j = 0; j < axes.size(); ++j) {
        AxisResize& axis = plan[size_t(axes[j])];
        const Dim& length = in[axes[j]];
        axis.out = sizes[j];
        axis.length = double(sizes[j]);
        if (length.is_static()) axis.scale = ratio(sizes[j], length.value());
      }
      return plan;
    }
    // keep_aspect_ratio_policy: one scale for all axes, the smallest or largest size ratio.
    double scale = policy_ == Policy::kNotLarger ? std::numeric_limits<double>::infinity() : 0;
    for (size_t j = 0; j < axes.size(); ++j) {
      const double r = ratio(sizes[j], in[axes[j]].value());
      scale = policy_ == Policy::kNotLarger ? std::min(scale, r) : std::max(scale, r);
    }
    for (int64_t axis : axes) {
      const double length = scale * double(in[axis].value());
      if (!(length <= double(kMaxElements))) fail("resized length {} is too large", length);
      plan[size_t(axis)] = {Dim(int64_t(length + 0.5)), scale, length};  // rounds half up
    }
    return plan;
  }

  static double ratio(int64_t size, int64_t length) {
    if (length == 0) {
      if (size != 0) fail("cannot resize an axis of length 0 to {}", size);
      return 1;
    }
    return double(size) / double(length);
  }

  // out = floor(in * scale); a symbolic input length stays symbolic for whole scales.
  static AxisResize scaled_axis(const Dim& in, double scale) {
    if (!(scale > 0) || !std::isfinite(scale))
      fail("input 'scales' has {}, scales must be positive", scale);
    if (!in.is_static()) {
      if (scale != std::floor(scale) || scale > double(kMaxElements)) throw NotStatic{};
      return {in * Dim(int64_t(scale)), scale, 0};
    }
    const double length = double(in.value()) * scale;
    if (!(length <= double(kMaxElements))) fail("resized length {} is too large", length);
    return {Dim(int64_t(std::floor(length))), scale, length};
  }

  // roi start (first rank values) and end (last rank values) for every axis, defaults 0 and 1.
  std::vector<double> roi_per_axis(const KernelContext& ctx, int64_t rank) const {
    std::vector<double> roi(size_t(2 * rank), 0.0);
    std::fill(roi.begin() + rank, roi.end(), 1.0);
    if (transform_ != "tf_crop_and_resize" || !ctx.has_input(1) || ctx.input(1).numel() == 0)
      return roi;
    const std::vector<int64_t> axes = target_axes(rank);
    const std::vector<double> given = ctx.input(1).to_double();
    if (given.size() != 2 * axes.size())
      fail("input 'roi' has {} values, expected {}", given.size(), 2 * axes.size());
    for (size_t j = 0; j < axes.size(); ++j) {
      roi[size_t(axes[j])] = given[j];
      roi[size_t(axes[j] + rank)] = given[j + axes.size()];
    }
    return roi;
  }

  // The input coordinate that output coordinate x maps to.
  double original_coordinate(double x, const AxisResize& axis, int64_t in_length, double roi_start,
                             double roi_end) const {
    const double scale = axis.scale, length = axis.length, in = double(in_length);
    if (transform_ == "half_pixel") return (x + 0.5) / scale - 0.5;
    if (transform_ == "pytorch_half_pixel")
      return axis.out.value() > 1 ? (x + 0.5) / scale - 0.5 : 0;
    if (transform_ == "half_pixel_symmetric") {
      // Centres the sampled region when the output length was rounded down.
      const double adjustment = double(axis.out.value()) / length;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5) / scale - 0.5;
    }
    if (transform_ == "align_corners") return length == 1 ? 0 : x * (in - 1) / (length - 1);
    if (transform_ == "asymmetric") return x / scale;
    if (transform_ == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
    // tf_crop_and_resize
    if (length == 1) return 0.5 * (roi_start + roi_end) * (in - 1);
    return roi_start * (in - 1) + x * (roi_end - roi_start) * (in - 1) / (length - 1);
  }

  // The nearest input index to coordinate x under nearest_mode (before clamping).
  double nearest_index(double x) const {
    const double below = std::floor(x), fraction = x - below;
    if (nearest_mode_ == "floor") return below;
    if (nearest_mode_ == "ceil") return std::ceil(x);
    if (nearest_mode_ == "round_prefer_ceil") return fraction < 0.5 ? below : below + 1;
    return fraction <= 0.5 ? below : below + 1;  // round_prefer_floor
  }

  AxisTaps axis_taps(const AxisResize& axis, int64_t in_length, double roi_start,
                     double roi_end) const {
    const int64_t out_length = axis.out.value();
    if (in_length == 0 && out_length > 0) fail("cannot resize an axis of length 0");
    std::vector<std::vector<std::pair<int64_t, double>>> all(static_cast<size_t>(out_length));
    std::vector<bool> outside(size_t(out_length), false);
    for (int64_t x = 0; x < out_length; ++x) {
      const double at = original_coordinate(double(x), axis, in_length, roi_start, roi_end);
      if (transform_ == "tf_crop_and_resize" && (at < 0 || at > double(in_length - 1))) {
        outside[size_t(x)] = true;
        continue;
      }
      all[size_t(x)] =
          mode_ == ResizeMode::kNearest
              ? std::vector<std::pair<int64_t, double>>{{clamp_index(nearest_index(at), in_length),
                                                         1.0}}
              : filter_taps(at, axis.scale, in_length);
    }
    // Pack into a fixed count per coordinate, dropping zero weights (an unresized axis then
    // has one tap) and padding with weight 0.
    AxisTaps taps;
    for (auto& list : all) {
      std::erase_if(list, [](const auto& tap) { return tap.second == 0; });
      taps.count = std::max<int64_t>(taps.count, int64_t(list.size()));
    }
    taps.count = std::max<int64_t>(taps.count, 1);
    for (const auto& list : all)
      for (int64_t t = 0; t < taps.count; ++t) {
        const bool real = t < int64_t(list.size());
        taps.index.push_back(real ? list[size_t(t)].first : 0);
        taps.weight.push_back(real ? list[size_t(t)].second : 0.0);
      }
    taps.outside = std::move(outside);
    return taps;
  }

  // Clamps to [0, length - 1]; a NaN coordinate (from a NaN roi) reads element 0.
  static int64_t clamp_index(double index, int64_t length) {
    if (!(index > 0)) return 0;
    return index >= double(length - 1) ? length - 1 : int64_t(index);
  }

  // Linear or cubic taps around coordinate x. With antialias the filter is stretched by 1/scale
  // when downscaling, so more inputs contribute; weights are then normalised to sum to 1.
  std::vector<std::pair<int64_t, double>> filter_taps(double x, double scale,
                                                      int64_t in_length) const {
    // Taps sit at base + i with x = base + ratio, ratio in (0, 1].
    double base = std::floor(x), ratio = x - base;
    if (ratio == 0) {
      base -= 1;
      ratio = 1;
    }
    const double stretch = antialias_ ? std::min(scale, 1.0) : 1.0;
    const double support = mode_ == ResizeMode::kLinear ? 1.0 : 2.0;
    const int64_t first = int64_t(std::floor(-support / stretch)) + 1;
    std::vector<std::pair<int64_t, double>> taps;
    double sum = 0;
    for (int64_t i = first; i < 2 - first; ++i) {
      const double distance = stretch * (double(i) - ratio);
      double w = mode_ == ResizeMode::kLinear ? std::max(0.0, 1 - std::abs(distance))
                                              : cubic_kernel(distance, cubic_a_);
      const double index = base + double(i);
      if (exclude_outside_ && (index < 0 || index >= double(in_length))) w = 0;
      sum += w;
      taps.push_back({clamp_index(index, in_length), w});  // edge padding
    }
    if ((antialias_ || exclude_outside_) && sum != 0)
      for (auto& tap : taps) tap.second /= sum;
    return taps;
  }

  template <class T>
  void interpolate(const Tensor& in, const std::vector<AxisTaps>& taps, Tensor& out) const {
    const int64_t rank = in.rank();
    const std::vector<int64_t> strides = row_major_strides(in.shape());
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    const T extrapolation = from_double<T>(extrapolation_value_);
    int64_t combos = 1;
    for (const AxisTaps& t : taps) combos *= t.count;
    std::vector<int64_t> coord(size_t(rank), 0);
    // Input offset and weight of tap combination c (one tap per axis) for the current coord.
    auto combination = [&](int64_t c, int64_t* offset, double* weight) {
      *offset = 0;
      *weight = 1;
      for (int64_t d = rank; d-- > 0;) {
        const AxisTaps& t = taps[size_t(d)];
        const size_t k = size_t(coord[size_t(d)] * t.count + c % t.count);
        c /= t.count;
        *offset += t.index[k] * strides[size_t(d)];
        *weight *= t.weight[k];
      }
    };
    for (int64_t o = 0; o < out.numel(); ++o) {
      bool outside = false;
      for (int64_t d = 0; d < rank; ++d)
        outside = outside || taps[size_t(d)].outside[size_t(coord[size_t(d)])];
      int64_t offset = 0;
      double weight = 0;
      if (outside) {
        dst[o] = extrapolation;
      } else if (combos == 1) {
        // One tap per axis: copied exactly when its weight is 1 (nearest, nothing to blend).
        combination(0, &offset, &weight);
        dst[o] = weight == 1 ? src[offset] : from_double<T>(weight * double(src[offset]));
      } else {
        double sum = 0;
        for (int64_t c = 0; c < combos; ++c) {
          combination(c, &offset, &weight);
          sum += weight * double(src[offset]);
        }
        dst[o] = from_double<T>(sum);
      }
      for (int64_t d = rank; d-- > 0;) {  // next output coordinate
        if (++coord[size_t(d)] < out.dim(d)) break;
        coord[size_t(d)] = 0;
      }
    }
  }

  int64_t opset_;
  std::vector<double> attr_scales_;  // Upsample before opset 9
  ResizeMode mode_ = ResizeMode::kNearest;
  std::string transform_;
  std::string nearest_mode_;
  float cubic_a_ = -0.75f;
  bool exclude_outside_ = false;
  float extrapolation_value_ = 0;
  bool antialias_ = false;
  std::vector<int64_t> axes_;  // empty: every axis
  Policy policy_ = Policy::kStretch;
};

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> resize_copy_sources(const Op& op,
                                                                     const KernelContext& ctx) {
  const auto* resize = dynamic_cast<const ResizeOp*>(&op);
  if (!resize) return std::nullopt;
  bool identity = true;
  std::vector<std::vector<int64_t>> sources;
  for (const AxisTaps& t : resize->axes_taps(ctx, &identity)) {
    std::vector<int64_t> axis(t.outside.size());
    for (size_t x = 0; x < axis.size(); ++x) {
      // One tap of weight 1 (others of weight 0 read nothing): a copy.
      int64_t copied = -1;
      for (int64_t k = 0; k < t.count; ++k) {
        const size_t j = x * size_t(t.count) + size_t(k);
        if (t.weight[j] == 1 && copied < 0)
          copied = t.index[j];
        else if (t.weight[j] != 0)
          return std::nullopt;
      }
      if (t.outside[x] || copied < 0) return std::nullopt;
      axis[x] = copied;
    }
    sources.push_back(std::move(axis));
  }
  return sources;
}

std::optional<std::vector<ResizeTaps>> resize_taps(const Op& op, const KernelContext& ctx) {
  const auto* resize = dynamic_cast<const ResizeOp*>(&op);
  if (!resize) return std::nullopt;
  bool identity = true;
  std::vector<ResizeTaps> axes;
  for (const AxisTaps& t : resize->axes_taps(ctx, &identity)) {
    for (bool outside : t.outside)
      if (outside) return std::nullopt;
    axes.push_back({t.count, t.index, t.weight});
  }
  return axes;
}

std::unique_ptr<Op> make_resize(const NodeInfo& node) {
  return std::make_unique<ResizeOp>(node);
}

}  // namespace strata::ops
