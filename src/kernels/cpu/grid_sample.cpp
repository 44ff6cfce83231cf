// GridSample over 2-D images, f32, bilinear or nearest, zeros or border padding, either
// align_corners: per batch item, every output point's taps (a plane offset and a weight each; a
// tap outside a zero-padded image weighs 0) are computed once into scratch, then each channel's
// plane is read through them, 16 points at a time with AVX-512 gathers where the CPU has them.
// Points split among threads (each through every channel). Cubic mode, reflection padding and 1-D
// or 3-D images stay with the reference kernel.
#include "ops/grid_sample.h"

#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/row_math.h"
#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

using ops::GridSampleMode;
using ops::GridSamplePadding;

// Below this many output values, one thread does the whole node.
constexpr int64_t kGridSampleShareValues = int64_t(1) << 16;

bool grid_sample_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "GridSample";
}

Verdict grid_sample_supports(const NodeRequest& r) {
  const auto a = ops::grid_sample_attributes(r.op);
  if (!a) return Verdict::no("not a GridSample op");
  if (r.input(0).dtype != DType::kF32 || r.input(1).dtype != DType::kF32)
    return Verdict::no(fmt::format("runs f32 only; X is {} and grid {}",
                                   dtype_name(r.input(0).dtype), dtype_name(r.input(1).dtype)));
  if (r.input(0).shape.rank() != 4) return Verdict::no("images that are not 2-D");
  if (a->mode == GridSampleMode::kCubic) return Verdict::no("cubic mode stays with the reference");
  if (a->padding == GridSamplePadding::kReflection)
    return Verdict::no("reflection padding stays with the reference");
  const std::vector<int64_t> x = r.input(0).shape.values();
  if (x[2] * x[3] >= (int64_t(1) << 31)) return Verdict::no("planes of 2^31 values or more");
  if (x[2] == 0 || x[3] == 0) return Verdict::no("an empty image");
  if (r.input(1).shape.values()[0] != x[0]) return Verdict::no("grid's batch is not X's");
  return Verdict::yes("2-D taps computed once per point, planes read through them");
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's gather intrinsics

// out[p] = Σ_t weight[t·stride + p] · plane[offset[t·stride + p]] for p < count and `taps`
// taps, 16 points at a time.
__attribute__((target("avx512f"))) void sample_avx512(const float* plane, const int32_t* offset,
                                                      const float* weight, int64_t taps,
                                                      int64_t stride, int64_t count, float* out) {
  for (int64_t p = 0; p < count; p += 16) {
    const __mmask16 k = p + 16 <= count ? __mmask16(0xffff) : __mmask16((1u << (count - p)) - 1);
    __m512 sum = _mm512_setzero_ps();
    for (int64_t t = 0; t < taps; ++t) {
      const __m512i at = _mm512_maskz_loadu_epi32(k, offset + t * stride + p);
      const __m512 value = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, at, plane, 4);
      sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, weight + t * stride + p), value, sum);
    }
    _mm512_mask_storeu_ps(out + p, k, sum);
  }
}

#pragma GCC diagnostic pop

void sample_scalar(const float* plane, const int32_t* offset, const float* weight, int64_t taps,
                   int64_t stride, int64_t count, float* out) {
  for (int64_t p = 0; p < count; ++p) {
    float sum = 0;
    for (int64_t t = 0; t < taps; ++t)
      sum += weight[t * stride + p] * plane[offset[t * stride + p]];
    out[p] = sum;
  }
}

class GridSampleKernel final : public Kernel {
 public:
  explicit GridSampleKernel(const NodeRequest& r) : wide_(has_avx512()) {
    const ops::GridSampleAttributes a = *ops::grid_sample_attributes(r.op);
    name_ = wide_ ? "strata:grid_sample:avx512" : "strata:grid_sample";
    const std::vector<int64_t> x = r.input(0).shape.values(), grid = r.input(1).shape.values();
    batch_ = x[0];
    channels_ = x[1];
    height_ = x[2];
    width_ = x[3];
    points_ = grid[1] * grid[2];
    nearest_ = a.mode == GridSampleMode::kNearest;
    border_ = a.padding == GridSamplePadding::kBorder;
    align_corners_ = a.align_corners;
    taps_ = nearest_ ? 1 : 4;
    // Per point and tap: an int32 offset and a float weight.
    scratch_bytes_ = int64_t(sizeof(int32_t) + sizeof(float)) * taps_ * points_;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    const float* grid = args.inputs[1]->data<float>();
    float* y = args.outputs[0]->data<float>();
    auto* offset = static_cast<int32_t*>(args.scratch);
    float* weight = reinterpret_cast<float*>(offset + taps_ * points_);
    const int64_t plane = height_ * width_;
    const bool share = channels_ * points_ >= kGridSampleShareValues;
    // Each thread takes a range of points through every batch item and channel: its taps are its
    // own, so no thread waits for another.
#pragma omp parallel if (share)
    {
      const int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
      const int64_t begin = points_ * t / threads / 16 * 16;
      const int64_t end = t + 1 == threads ? points_ : points_ * (t + 1) / threads / 16 * 16;
      for (int64_t n = 0; n < batch_ && begin < end; ++n) {
        const float* g = grid + n * points_ * 2;
        for (int64_t p = begin; p < end; ++p) point_taps(g + 2 * p, p, offset, weight);
        for (int64_t c = 0; c < channels_; ++c) {
          const float* in = x + (n * channels_ + c) * plane;
          float* out = y + (n * channels_ + c) * points_ + begin;
          if (wide_)
            sample_avx512(in, offset + begin, weight + begin, taps_, points_, end - begin, out);
          else
            sample_scalar(in, offset + begin, weight + begin, taps_, points_, end - begin, out);
        }
      }
    }
  }

 private:
  // The location along an axis of `size` for normalised coordinate u, as the reference computes
  // it (in double; rounded half to even for nearest; clamped to the image for border padding).
  double location(double u, int64_t size) const {
    double v = align_corners_ ? (u + 1) / 2 * double(size - 1) : ((u + 1) * double(size) - 1) / 2;
    if (nearest_) v = std::nearbyint(v);
    const double lo = align_corners_ ? 0.0 : -0.5,
                 hi = align_corners_ ? double(size - 1) : double(size) - 0.5;
    if (border_ && (v < lo || v > hi)) v = std::clamp(v, 0.0, double(size - 1));
    return v;
  }

  // Index i along an axis of `size`, or -1 outside with zeros padding.
  int64_t neighbour(int64_t i, int64_t size) const {
    if (i >= 0 && i < size) return i;
    return border_ ? std::clamp<int64_t>(i, 0, size - 1) : -1;
  }

  void point_taps(const float* g, int64_t p, int32_t* offset, float* weight) const {
    const double vx = location(double(g[0]), width_), vy = location(double(g[1]), height_);
    if (nearest_) {
      const int64_t ix = neighbour(int64_t(vx), width_), iy = neighbour(int64_t(vy), height_);
      const bool inside = ix >= 0 && iy >= 0;
      offset[p] = inside ? int32_t(iy * width_ + ix) : 0;
      weight[p] = inside ? 1.f : 0.f;
      return;
    }
    const double bx = std::floor(vx), by = std::floor(vy), tx = vx - bx, ty = vy - by;
    const int64_t xs[2] = {neighbour(int64_t(bx), width_), neighbour(int64_t(bx) + 1, width_)};
    const int64_t ys[2] = {neighbour(int64_t(by), height_), neighbour(int64_t(by) + 1, height_)};
    const double wx[2] = {1 - tx, tx}, wy[2] = {1 - ty, ty};
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        const int64_t t = a * 2 + b;
        const bool inside = ys[a] >= 0 && xs[b] >= 0;
        offset[t * points_ + p] = inside ? int32_t(ys[a] * width_ + xs[b]) : 0;
        weight[t * points_ + p] = inside ? float(wy[a] * wx[b]) : 0.f;
      }
  }

  bool wide_;
  bool nearest_ = false, border_ = false, align_corners_ = false;
  int64_t batch_ = 0, channels_ = 0, height_ = 0, width_ = 0, points_ = 0, taps_ = 4;
};

std::unique_ptr<Kernel> grid_sample_prepare(const NodeRequest& r) {
  return std::make_unique<GridSampleKernel>(r);
}

}  // namespace

KernelFamily grid_sample_family() {
  return {"cpu_grid_sample",    false, &grid_sample_serves, &grid_sample_supports,
          &grid_sample_prepare, false};
}

}  // namespace strata::kernels::cpu
