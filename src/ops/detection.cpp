// Detection ops: NonMaxSuppression (greedy, per batch and class; its output count depends on the
// scores, like NonZero's) and RoiAlign (bilinear samples averaged or maxed per output bin).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/op.h"
#include "ops/roi_align.h"
#include "ops/upper_bound.h"

// Compiled for AVX-512, AVX2 and plain x86-64, picked when the library loads; not under
// ThreadSanitizer, which would instrument the picking function that the loader calls before the
// sanitizer's runtime is up (a crash at start-up).
#if defined(__SANITIZE_THREAD__)
#define STRATA_WIDEST_SIMD
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRATA_WIDEST_SIMD
#endif
#endif
#ifndef STRATA_WIDEST_SIMD
#define STRATA_WIDEST_SIMD __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

namespace strata::ops {

namespace {

// The boxes NonMaxSuppression has kept so far, one array per coordinate, so that a candidate is
// compared with many of them at once (vector instructions where the CPU has them): with the
// class-offset boxes torchvision's batched NMS writes, nearly every box is kept and each candidate
// meets thousands.
class KeptBoxes {
 public:
  size_t size() const { return y1_.size(); }
  void add(float y1, float x1, float y2, float x2, float area) {
    y1_.push_back(y1);
    x1_.push_back(x1);
    y2_.push_back(y2);
    x2_.push_back(x2);
    area_.push_back(area);
  }
  // Whether a kept box's intersection over union with the box (y1, x1, y2, x2) of `area` is over
  // `threshold`.
  STRATA_WIDEST_SIMD bool overlaps(float y1, float x1, float y2, float x2, float area,
                                   float threshold) const {
    constexpr size_t kBlock = 64;  // compared without branching, then the first hit decides
    for (size_t start = 0; start < size(); start += kBlock) {
      const size_t end = std::min(size(), start + kBlock);
      int hit = 0;
      for (size_t k = start; k < end; ++k) {
        const float ih = std::min(y2, y2_[k]) - std::max(y1, y1_[k]);
        const float iw = std::min(x2, x2_[k]) - std::max(x1, x1_[k]);
        const float inter = ih * iw;
        const float uni = area + area_[k] - inter;
        hit |= int(ih > 0) & int(iw > 0) & int(uni > 0) & int(inter / uni > threshold);
      }
      if (hit) return true;
    }
    return false;
  }

 private:
  std::vector<float> y1_, x1_, y2_, x2_, area_;
};

class NonMaxSuppressionOp final : public Op {
 public:
  explicit NonMaxSuppressionOp(const NodeInfo& node)
      : center_point_box_(node.attr_int("center_point_box", 0)) {
    if (center_point_box_ != 0 && center_point_box_ != 1)
      fail("center_point_box must be 0 or 1, not {}", center_point_box_);
  }

  void infer(InferContext& ctx) const override {
    check_shapes(ctx.shape(0), ctx.shape(1));
    for (size_t i : {size_t(0), size_t(1)})
      if (ctx.dtype(i) != DType::kF32)
        fail("input '{}' must be float32, not {}", i == 0 ? "boxes" : "scores",
             dtype_name(ctx.dtype(i)));
    for (size_t i = 2; i < 5; ++i)
      if (ctx.has_input(i) && ctx.shape(i).numel() != Dim(1))
        fail("input {} must hold one value, not shape {}", i, ctx.shape(i).str());
    bool known = ctx.input(0).value && ctx.input(1).value;
    for (size_t i = 2; i < 5; ++i) known &= !ctx.has_input(i) || ctx.input(i).value != nullptr;
    Dim count;
    if (!known) {
      count = data_dependent(upper_bound(ctx), upper_bound_how(ctx));
    } else {
      std::vector<const Tensor*> in;
      for (size_t i = 0; i < 5; ++i)
        in.push_back(ctx.has_input(i) ? ctx.input(i).value.get() : nullptr);
      count = int64_t(select(in).size() / 3);
    }
    ctx.set_output(0, DType::kI64, Shape{count, 3});
  }

  // Per batch and class: sorting the scores, then an IoU (about 15 FLOPs) per pair of candidate
  // and kept box, at most boxes² / 2.
  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    // scores: [batch, classes, boxes]; its element count was once taken for the classes, which
    // counted boxes³ (Mask R-CNN's NMS at 130,000 GFLOP/s in profiles).
    const double boxes = ctx.input(0).shape[1].value();
    const double lists = boxes > 0 ? ctx.numel_in(1) / boxes : 0;  // batch × classes
    c.flops =
        lists * (boxes * std::max(1.0, std::log2(std::max(boxes, 1.0))) + 15 * boxes * boxes / 2);
    return c;
  }

  void run(KernelContext& ctx) const override {
    std::vector<const Tensor*> in;
    for (size_t i = 0; i < 5; ++i) in.push_back(ctx.has_input(i) ? &ctx.input(i) : nullptr);
    const std::vector<int64_t> selected = select(in);
    std::copy(selected.begin(), selected.end(), ctx.output(0).data<int64_t>());
  }

 private:
  // At most max_output_boxes_per_class per batch and class (every box when it is not a constant;
  // absent, it is 0: no output).
  static Dim upper_bound(const InferContext& ctx) {
    const Shape& scores = ctx.shape(1);  // [batch, classes, boxes]
    Dim per_class = scores[2];
    if (!ctx.has_input(2)) return Dim(0);
    if (ctx.input(2).value)
      per_class = Dim(std::min(std::max<int64_t>(ctx.input(2).value->to_int64().at(0), 0),
                               scores[2].is_static() ? scores[2].value() : INT64_MAX));
    return per_class * scores[1] * scores[0];
  }
  static const char* upper_bound_how(const InferContext& ctx) {
    return ctx.has_input(2) && ctx.input(2).value
               ? "output count at most max_output_boxes_per_class × classes × batch"
               : "output count at most boxes × classes × batch (max_output_boxes_per_class not a "
                 "constant)";
  }

  static void check_shapes(const Shape& boxes, const Shape& scores) {
    if (boxes.rank() != 3 || boxes[2] != Dim(4))
      fail("input 'boxes' must have shape [batch, boxes, 4], not {}", boxes.str());
    if (scores.rank() != 3)
      fail("input 'scores' must have shape [batch, classes, boxes], not {}", scores.str());
    if ((boxes[0].is_static() && scores[0].is_static() && boxes[0] != scores[0]) ||
        (boxes[1].is_static() && scores[2].is_static() && boxes[1] != scores[2]))
      fail("input 'boxes' of shape {} does not match 'scores' of shape {} (batch, boxes)",
           boxes.str(), scores.str());
  }

  // Corners (y1, x1, y2, x2) of box b, ordered.
  struct Box {
    float y1, x1, y2, x2;
  };
  Box box(const float* p) const {
    if (center_point_box_ == 1) {  // x_center, y_center, width, height
      return {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
    }
    return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
  }
  static float area(const Box& a) { return (a.y2 - a.y1) * (a.x2 - a.x1); }

  // Triples (batch, class, box) in output order.
  std::vector<int64_t> select(const std::vector<const Tensor*>& in) const {
    const Tensor& boxes = *in[0];
    const Tensor& scores = *in[1];
    check_shapes(Shape::of(boxes.shape()), Shape::of(scores.shape()));
    const int64_t max_out = in[2] && in[2]->numel() ? in[2]->to_int64()[0] : 0;
    const float iou_threshold = in[3] && in[3]->numel() ? float(in[3]->to_double()[0]) : 0.0f;
    const bool has_score_threshold = in[4] && in[4]->numel();
    const float score_threshold = has_score_threshold ? float(in[4]->to_double()[0]) : 0.0f;
    if (iou_threshold < 0 || iou_threshold > 1)
      fail("iou_threshold {} is outside [0, 1]", iou_threshold);
    const int64_t batches = boxes.dim(0), n = boxes.dim(1), classes = scores.dim(1);
    std::vector<int64_t> out;
    if (max_out <= 0) return out;
    for (int64_t b = 0; b < batches; ++b) {
      const float* bp = boxes.data<float>() + b * n * 4;
      for (int64_t c = 0; c < classes; ++c) {
        const float* sp = scores.data<float>() + (b * classes + c) * n;
        std::vector<int64_t> candidates;
        for (int64_t i = 0; i < n; ++i)
          if (!has_score_threshold || sp[i] > score_threshold) candidates.push_back(i);
        std::stable_sort(candidates.begin(), candidates.end(),
                         [&](int64_t x, int64_t y) { return sp[x] > sp[y]; });
        KeptBoxes kept;
        for (int64_t i : candidates) {
          if (int64_t(kept.size()) >= max_out) break;
          const Box bi = box(bp + i * 4);
          const float ai = area(bi);
          if (kept.overlaps(bi.y1, bi.x1, bi.y2, bi.x2, ai, iou_threshold)) continue;
          kept.add(bi.y1, bi.x1, bi.y2, bi.x2, ai);
          out.insert(out.end(), {b, c, i});
        }
      }
    }
    return out;
  }

  int64_t center_point_box_;
};

class RoiAlignOp final : public Op {
 public:
  RoiAlignAttributes attributes() const {
    return {mode_ == "max",  output_height_, output_width_,
            sampling_ratio_, spatial_scale_, half_pixel_};
  }

  explicit RoiAlignOp(const NodeInfo& node)
      : mode_(node.attr_string("mode", "avg")),
        output_height_(node.attr_int("output_height", 1)),
        output_width_(node.attr_int("output_width", 1)),
        sampling_ratio_(node.attr_int("sampling_ratio", 0)),
        spatial_scale_(node.attr_float("spatial_scale", 1.0f)),
        half_pixel_(node.attr_string("coordinate_transformation_mode",
                                     node.opset() >= 16 ? "half_pixel" : "output_half_pixel") ==
                    "half_pixel") {
    if (mode_ != "avg" && mode_ != "max") fail("mode must be 'avg' or 'max', not '{}'", mode_);
    const std::string ctm = node.attr_string("coordinate_transformation_mode", "half_pixel");
    if (ctm != "half_pixel" && ctm != "output_half_pixel")
      fail("coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel', not '{}'",
           ctm);
    if (output_height_ < 1 || output_width_ < 1)
      fail("output_height and output_width must be at least 1, not {} and {}", output_height_,
           output_width_);
    if (sampling_ratio_ < 0) fail("sampling_ratio must be 0 or more, not {}", sampling_ratio_);
  }

  void infer(InferContext& ctx) const override {
    const Shape& x = ctx.shape(0);
    const Shape& rois = ctx.shape(1);
    const Shape& index = ctx.shape(2);
    if (x.rank() != 4) fail("input 'X' must have rank 4 (N, C, H, W), not {}", x.rank());
    if (ctx.dtype(0) != DType::kF32 || ctx.dtype(1) != DType::kF32)
      fail("inputs 'X' and 'rois' must be float32");
    if (rois.rank() != 2 || rois[1] != Dim(4))
      fail("input 'rois' must have shape [rois, 4], not {}", rois.str());
    if (index.rank() != 1 || (index[0].is_static() && rois[0].is_static() && index[0] != rois[0]))
      fail("input 'batch_indices' of shape {} must have one entry per roi ({})", index.str(),
           rois[0].str());
    if (ctx.dtype(2) != DType::kI64 && ctx.dtype(2) != DType::kI32)
      fail("input 'batch_indices' must be int64, not {}", dtype_name(ctx.dtype(2)));
    ctx.set_output(0, DType::kF32, Shape{rois[0], x[1], output_height_, output_width_});
  }

  // Per output element: its samples (sampling_ratio² per bin; with an adaptive ratio of 0, which
  // depends on the roi sizes, 2×2 is assumed) × 8 FLOPs (4 weighted corners summed).
  std::optional<Cost> cost(const CostContext& ctx) const override {
    Cost c = data_movement_cost(ctx);
    const double samples = sampling_ratio_ > 0 ? double(sampling_ratio_ * sampling_ratio_) : 4.0;
    c.flops = ctx.numel_out(0) * samples * 8;
    // Only the sampled pixels of X are read, not all of it.
    c.bytes_read = std::min(c.bytes_read,
                            ctx.numel_out(0) * samples * 4 * 4 + ctx.bytes_in(1) + ctx.bytes_in(2));
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const float* rois = ctx.input(1).data<float>();
    const std::vector<int64_t> batch = ctx.input(2).to_int64();
    Tensor& out = ctx.output(0);
    const int64_t n = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
    const float offset = half_pixel_ ? 0.5f : 0.0f;
    float* o = out.data<float>();
    for (size_t r = 0; r < batch.size(); ++r) {
      if (batch[r] < 0 || batch[r] >= n)
        fail("batch_indices[{}] is {}, outside the batch of {}", r, batch[r], n);
      const float* roi = rois + r * 4;
      for (int k = 0; k < 4; ++k)
        if (!std::isfinite(roi[k])) fail("roi {} has a coordinate that is not finite", r);
      const float start_w = roi[0] * spatial_scale_ - offset;
      const float start_h = roi[1] * spatial_scale_ - offset;
      float roi_w = roi[2] * spatial_scale_ - offset - start_w;
      float roi_h = roi[3] * spatial_scale_ - offset - start_h;
      if (!half_pixel_) {
        roi_w = std::max(roi_w, 1.0f);
        roi_h = std::max(roi_h, 1.0f);
      }
      const float bin_h = roi_h / float(output_height_), bin_w = roi_w / float(output_width_);
      const int64_t grid_h =
          sampling_ratio_ > 0 ? sampling_ratio_ : int64_t(std::ceil(roi_h / float(output_height_)));
      const int64_t grid_w =
          sampling_ratio_ > 0 ? sampling_ratio_ : int64_t(std::ceil(roi_w / float(output_width_)));
      const float count = float(std::max<int64_t>(grid_h * grid_w, 1));
      for (int64_t c = 0; c < channels; ++c) {
        const float* plane = x.data<float>() + (batch[r] * channels + c) * height * width;
        for (int64_t ph = 0; ph < output_height_; ++ph)
          for (int64_t pw = 0; pw < output_width_; ++pw) {
            float sum = 0, max = 0;
            bool first = true;
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const float y =
                  start_h + float(ph) * bin_h + (float(iy) + 0.5f) * bin_h / float(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const float xx =
                    start_w + float(pw) * bin_w + (float(ix) + 0.5f) * bin_w / float(grid_w);
                float v[4] = {0, 0, 0, 0};
                sample(plane, height, width, y, xx, v);
                sum += v[0] + v[1] + v[2] + v[3];
                const float m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
                max = first ? m : std::max(max, m);
                first = false;
              }
            }
            *o++ = mode_ == "avg" ? sum / count : max;
          }
      }
    }
  }

 private:
  // The four weighted corner values of a bilinear sample at (y, x); zeros outside the image.
  static void sample(const float* plane, int64_t height, int64_t width, float y, float x,
                     float v[4]) {
    int64_t at[4];
    float w[4];
    if (!bilinear_corners(height, width, y, x, at, w)) return;
    for (int k = 0; k < 4; ++k) v[k] = w[k] * plane[at[k]];
  }

  std::string mode_;
  int64_t output_height_, output_width_, sampling_ratio_;
  float spatial_scale_;
  bool half_pixel_;
};

}  // namespace

std::optional<RoiAlignAttributes> roi_align_attributes(const Op& op) {
  const auto* roi_align = dynamic_cast<const RoiAlignOp*>(&op);
  if (!roi_align) return std::nullopt;
  return roi_align->attributes();
}

std::unique_ptr<Op> make_detection(const NodeInfo& node) {
  if (node.op_type() == "NonMaxSuppression") return std::make_unique<NonMaxSuppressionOp>(node);
  return std::make_unique<RoiAlignOp>(node);
}

}  // namespace strata::ops
