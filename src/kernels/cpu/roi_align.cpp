// RoiAlign, f32, with a fixed sampling_ratio (torchvision's detectors export 2): each roi's
// bilinear taps (four plane offsets and weights per sample) are computed once into scratch, where
// the reference kernel recomputes them for every channel. With many channels (FPN levels have
// 256) the feature map is first copied channels-last into scratch, so that each tap reads the
// channels side by side and the sums run as vectors over them, rois split among threads; with
// few, every (roi, channel) plane is read through the taps, the pairs split among threads. Sums
// and maxima are taken in the reference's order, so the results are the reference's. An adaptive
// ratio (0) depends on each roi's size, known only from the data: it stays with the reference
// kernel.
#include "ops/roi_align.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

// Below this many output values, one thread does the whole node.
constexpr int64_t kRoiAlignShareValues = int64_t(1) << 14;
// From this many channels on, the feature map is read channels-last.
constexpr int64_t kChannelsLastFrom = 16;
// Channels one pass over a bin's taps sums (a stack array each for sums and maxima).
constexpr int64_t kChannelChunk = 64;

bool roi_align_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "RoiAlign";
}

Verdict roi_align_supports(const NodeRequest& r) {
  const auto a = ops::roi_align_attributes(r.op);
  if (!a) return Verdict::no("not a RoiAlign op");
  if (a->sampling_ratio <= 0)
    return Verdict::no("an adaptive sampling_ratio (0) depends on the rois: reference kernel");
  if (r.input(0).dtype != DType::kF32 || r.input(1).dtype != DType::kF32)
    return Verdict::no("runs f32 only");
  const std::vector<int64_t> x = r.input(0).shape.values();
  if (x[2] * x[3] >= (int64_t(1) << 31)) return Verdict::no("planes of 2^31 values or more");
  if (x[2] == 0 || x[3] == 0) return Verdict::no("an empty image");
  return Verdict::yes("bilinear taps computed once per roi, planes read through them");
}

class RoiAlignKernel final : public Kernel {
 public:
  explicit RoiAlignKernel(const NodeRequest& r) : a_(*ops::roi_align_attributes(r.op)) {
    name_ = "strata:roi_align";
    const std::vector<int64_t> x = r.input(0).shape.values();
    batch_ = x[0];
    channels_ = x[1];
    height_ = x[2];
    width_ = x[3];
    rois_ = r.input(1).shape.values()[0];
    samples_ = a_.sampling_ratio * a_.sampling_ratio;
    bins_ = a_.output_height * a_.output_width;
    // Per roi, bin, sample and corner: an int32 offset and a float weight.
    scratch_bytes_ = int64_t(sizeof(int32_t) + sizeof(float)) * rois_ * bins_ * samples_ * 4;
    channels_last_ = channels_ >= kChannelsLastFrom;
    if (channels_last_) scratch_bytes_ += int64_t(sizeof(float)) * batch_ * channels_ * x[2] * x[3];
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    const float* rois = args.inputs[1]->data<float>();
    const std::vector<int64_t> batch = args.inputs[2]->to_int64();
    float* y = args.outputs[0]->data<float>();
    const int64_t taps = bins_ * samples_ * 4;  // per roi
    auto* offset = static_cast<int32_t*>(args.scratch);
    float* weight = reinterpret_cast<float*>(offset + rois_ * taps);
    // Checked before the threads start: a failure must not leave a parallel region.
    for (int64_t r = 0; r < rois_; ++r) {
      if (batch[size_t(r)] < 0 || batch[size_t(r)] >= batch_)
        fail("batch_indices[{}] is {}, outside the batch of {}", r, batch[size_t(r)], batch_);
      for (int k = 0; k < 4; ++k)
        if (!std::isfinite(rois[r * 4 + k])) fail("roi {} has a coordinate that is not finite", r);
    }
    const bool share = rois_ * channels_ * bins_ >= kRoiAlignShareValues;
#pragma omp parallel for schedule(static) if (share)
    for (int64_t r = 0; r < rois_; ++r)
      roi_taps(rois + r * 4, offset + r * taps, weight + r * taps);
    const int64_t plane = height_ * width_;
    if (channels_last_) {
      float* nhwc = weight + rois_ * taps;
      to_channels_last(x, nhwc, share);
#pragma omp parallel for schedule(static) if (share)
      for (int64_t r = 0; r < rois_; ++r)
        roi_channels_last(nhwc + batch[size_t(r)] * plane * channels_, offset + r * taps,
                          weight + r * taps, y + r * channels_ * bins_);
      return;
    }
    const float count = float(samples_);
#pragma omp parallel for schedule(static) if (share)
    for (int64_t rc = 0; rc < rois_ * channels_; ++rc) {
      const int64_t r = rc / channels_, c = rc % channels_;
      const float* in = x + (batch[size_t(r)] * channels_ + c) * plane;
      const int32_t* o = offset + r * taps;
      const float* w = weight + r * taps;
      float* out = y + rc * bins_;
      for (int64_t b = 0; b < bins_; ++b) {
        float sum = 0, max = 0;
        for (int64_t s = 0; s < samples_; ++s, o += 4, w += 4) {
          const float v0 = w[0] * in[o[0]], v1 = w[1] * in[o[1]], v2 = w[2] * in[o[2]],
                      v3 = w[3] * in[o[3]];
          sum += v0 + v1 + v2 + v3;
          const float m = std::max(std::max(v0, v1), std::max(v2, v3));
          max = s == 0 ? m : std::max(max, m);
        }
        out[b] = a_.max ? max : sum / count;
      }
    }
  }

 private:
  // The taps of one roi, bin by bin and sample by sample, at the positions the reference samples.
  void roi_taps(const float* roi, int32_t* offset, float* weight) const {
    const float shift = a_.half_pixel ? 0.5f : 0.0f;
    const float start_w = roi[0] * a_.spatial_scale - shift;
    const float start_h = roi[1] * a_.spatial_scale - shift;
    float roi_w = roi[2] * a_.spatial_scale - shift - start_w;
    float roi_h = roi[3] * a_.spatial_scale - shift - start_h;
    if (!a_.half_pixel) {
      roi_w = std::max(roi_w, 1.0f);
      roi_h = std::max(roi_h, 1.0f);
    }
    const float bin_h = roi_h / float(a_.output_height), bin_w = roi_w / float(a_.output_width);
    const int64_t grid = a_.sampling_ratio;
    for (int64_t ph = 0; ph < a_.output_height; ++ph)
      for (int64_t pw = 0; pw < a_.output_width; ++pw)
        for (int64_t iy = 0; iy < grid; ++iy) {
          const float yy = start_h + float(ph) * bin_h + (float(iy) + 0.5f) * bin_h / float(grid);
          for (int64_t ix = 0; ix < grid; ++ix) {
            const float xx = start_w + float(pw) * bin_w + (float(ix) + 0.5f) * bin_w / float(grid);
            tap(yy, xx, offset, weight);
            offset += 4;
            weight += 4;
          }
        }
  }

  // The four corners of a bilinear sample at (y, x) as the reference weighs them; weight 0 (and
  // offset 0) outside the image.
  void tap(float y, float x, int32_t* offset, float* weight) const {
    int64_t at[4] = {0, 0, 0, 0};
    float w[4] = {0, 0, 0, 0};
    ops::bilinear_corners(height_, width_, y, x, at, w);
    for (int k = 0; k < 4; ++k) {
      offset[k] = int32_t(at[k]);
      weight[k] = w[k];
    }
  }

  // x [N,C,H,W] → nhwc [N,H,W,C], pixels split among threads.
  void to_channels_last(const float* x, float* nhwc, bool share) const {
    const int64_t plane = height_ * width_;
#pragma omp parallel for schedule(static) if (share)
    for (int64_t np = 0; np < batch_ * plane; ++np) {
      const int64_t n = np / plane, p = np % plane;
      const float* from = x + n * channels_ * plane + p;
      float* to = nhwc + np * channels_;
      for (int64_t c = 0; c < channels_; ++c) to[c] = from[c * plane];
    }
  }

  // One roi's [C, bins] outputs from a channels-last image: per bin and chunk of channels, the
  // samples' four taps each add a row of channels, in the reference's order per channel.
  void roi_channels_last(const float* image, const int32_t* offset, const float* weight,
                         float* out) const {
    const float count = float(samples_);
    float sum[kChannelChunk], max[kChannelChunk];
    for (int64_t b = 0; b < bins_; ++b) {
      const int32_t* bin_offset = offset + b * samples_ * 4;
      const float* bin_weight = weight + b * samples_ * 4;
      for (int64_t c0 = 0; c0 < channels_; c0 += kChannelChunk) {
        const int64_t width = std::min(kChannelChunk, channels_ - c0);
        for (int64_t s = 0; s < samples_; ++s) {
          const int32_t* o = bin_offset + s * 4;
          const float* w = bin_weight + s * 4;
          const float *p0 = image + int64_t(o[0]) * channels_ + c0,
                      *p1 = image + int64_t(o[1]) * channels_ + c0,
                      *p2 = image + int64_t(o[2]) * channels_ + c0,
                      *p3 = image + int64_t(o[3]) * channels_ + c0;
          for (int64_t c = 0; c < width; ++c) {
            const float v0 = w[0] * p0[c], v1 = w[1] * p1[c], v2 = w[2] * p2[c], v3 = w[3] * p3[c];
            const float m = std::max(std::max(v0, v1), std::max(v2, v3));
            sum[c] = (s == 0 ? 0.0f : sum[c]) + (v0 + v1 + v2 + v3);
            max[c] = s == 0 ? m : std::max(max[c], m);
          }
        }
        for (int64_t c = 0; c < width; ++c)
          out[(c0 + c) * bins_ + b] = a_.max ? max[c] : sum[c] / count;
      }
    }
  }

  ops::RoiAlignAttributes a_;
  bool channels_last_ = false;
  int64_t batch_ = 0, channels_ = 0, height_ = 0, width_ = 0, rois_ = 0, samples_ = 0, bins_ = 0;
};

std::unique_ptr<Kernel> roi_align_prepare(const NodeRequest& r) {
  return std::make_unique<RoiAlignKernel>(r);
}

}  // namespace

KernelFamily roi_align_family() {
  return {"cpu_roi_align",    false, &roi_align_serves, &roi_align_supports,
          &roi_align_prepare, false};
}

}  // namespace strata::kernels::cpu
