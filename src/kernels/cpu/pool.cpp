// MaxPool and AveragePool over 2-D windows on activations whose channels are innermost
// (channels-last, or blocked in 8 or 16 channels: the layouts the convolutions around a pooling
// write), with AVX2: every window position is a whole vector of channels, so a 3×3 window is nine
// vector maxima or sums per 8 channels, six to seven taken as rows then columns (pool_row).
// oneDNN 2.6's AVX2 pooling ran 2× slower on GoogLeNet's and Inception's layers (AMD Zen 3: 3×3,
// stride 1, 256 channels at 28×28 in nChw8c, 0.71 ms against 0.34), 12% of GoogLeNet's run. Plain
// (nchw) inputs, dilations, 1-D and 3-D windows and global pools stay with oneDNN.
#include "ops/pool.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <vector>

#include "kernels/cpu/simd.h"
#include "kernels/kernel.h"
#include "kernels/pool_window.h"

namespace strata::kernels::cpu {

namespace {

// Below this many output values, one thread does the whole node.
constexpr int64_t kPoolShareValues = int64_t(1) << 15;

bool vector_pool_serves(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "MaxPool" || node.op_type == "AveragePool");
}

Verdict vector_pool_supports(const NodeRequest& r) {
  if (simd_level() < Simd::kAvx2)
    return Verdict::no("no AVX2 on this CPU (oneDNN's pooling is faster than portable loops)");
  if (r.input(0).dtype != DType::kF32) return Verdict::no("X is not float32");
  if (r.input(0).shape.rank() != 4) return Verdict::no("not a 2-D window");
  if (r.input_layouts[0] == Layout::kPlain || r.output_needs_plain[0])
    return Verdict::no("the channels are not innermost (plain nchw input or output)");
  if (const std::string problem = pool_window_problem(r); !problem.empty())
    return Verdict::no(problem);
  const PoolWindow w = pool_window_of(r);
  if (w.dilations[0] != 0 || w.dilations[1] != 0) return Verdict::no("a dilated window");
  return Verdict::yes("2-D pooling of channel vectors (AVX2)");
}

// The pooling as rows of channel vectors: `groups` images of [height][width][channels] floats
// (one per batch item in channels-last; one per block of channels and batch item when blocked).
struct PoolGeometry {
  int64_t groups, height, width, channels;  // input
  int64_t out_height, out_width;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
  bool is_max, count_include_pad;
  // Averages: 1 / the count of a window of h rows and w columns inside the input, at
  // [h · (kernel_w + 1) + w]. A product by it instead of a division per vector: the division's
  // latency was 38% of a 3×3 average pool's time with 8 channels a vector (Zen 3).
  const float* reciprocals;
};

// One output row of one group, in two passes that share work between neighbouring windows: the
// maximum (sum) over the window's rows of every input column into `columns` (width × channels
// floats), then over kernel_w neighbouring columns; for a 3×3 window 3 + 3 vector operations per
// output instead of 9 at stride 1, 4 + 3 at stride 2, and chains of 3 dependent ones instead of 9
// (GoogLeNet's and Inception's 3×3 stride-1 pools over 256 channels at 28×28: 0.22 → 0.15 ms on an
// AVX2 Zen 3). Maxima in any order are the same value; sums taken column first round differently
// from the reference's row-major order, within its tolerance, as oneDNN's do.
template <bool kMax>
__attribute__((target("avx2"))) void pool_row(const PoolGeometry& g, const float* in, float* out,
                                              int64_t out_y, float* columns) {
  const int64_t y0 = out_y * g.stride_h - g.pad_top;
  const int64_t top = std::max<int64_t>(y0, 0), bottom = std::min(y0 + g.kernel_h, g.height);
  const int64_t row_values = g.width * g.channels;
  const float* first = in + top * row_values;
  int64_t i = 0;
  for (; i + 8 <= row_values; i += 8) {
    __m256 acc = _mm256_loadu_ps(first + i);
    for (int64_t y = 1; y < bottom - top; ++y) {
      const __m256 v = _mm256_loadu_ps(first + y * row_values + i);
      acc = kMax ? _mm256_max_ps(acc, v) : _mm256_add_ps(acc, v);
    }
    _mm256_storeu_ps(columns + i, acc);
  }
  for (; i < row_values; ++i) {
    float acc = first[i];
    for (int64_t y = 1; y < bottom - top; ++y) {
      const float v = first[y * row_values + i];
      acc = kMax ? std::max(acc, v) : acc + v;
    }
    columns[i] = acc;
  }
  for (int64_t out_x = 0; out_x < g.out_width; ++out_x) {
    const int64_t x0 = out_x * g.stride_w - g.pad_left;
    const int64_t left = std::max<int64_t>(x0, 0), right = std::min(x0 + g.kernel_w, g.width);
    const float reciprocal =
        kMax ? 1.f : g.reciprocals[(bottom - top) * (g.kernel_w + 1) + (right - left)];
    float* to = out + out_x * g.channels;
    const float* column = columns + left * g.channels;
    int64_t c = 0;
    for (; c + 8 <= g.channels; c += 8) {
      __m256 acc = _mm256_loadu_ps(column + c);
      for (int64_t x = 1; x < right - left; ++x) {
        const __m256 v = _mm256_loadu_ps(column + x * g.channels + c);
        acc = kMax ? _mm256_max_ps(acc, v) : _mm256_add_ps(acc, v);
      }
      if (!kMax) acc = _mm256_mul_ps(acc, _mm256_set1_ps(reciprocal));
      _mm256_storeu_ps(to + c, acc);
    }
    for (; c < g.channels; ++c) {
      float acc = column[c];
      for (int64_t x = 1; x < right - left; ++x) {
        const float v = column[x * g.channels + c];
        acc = kMax ? std::max(acc, v) : acc + v;
      }
      to[c] = kMax ? acc : acc * reciprocal;
    }
  }
}

class VectorPoolKernel final : public Kernel {
 public:
  explicit VectorPoolKernel(const NodeRequest& r) {
    const Layout layout = r.input_layouts[0];
    input_layouts_ = {layout};
    output_layouts_ = {layout};
    name_ = "strata:pool_avx2";
    const std::vector<int64_t> x = r.input(0).shape.values(), y = r.output(0).shape.values();
    const int64_t block = channel_block(layout);
    const bool blocked = block > 1;
    g_.groups = blocked ? x[0] * ((x[1] + block - 1) / block) : x[0];
    g_.channels = blocked ? block : x[1];
    g_.height = x[2];
    g_.width = x[3];
    g_.out_height = y[2];
    g_.out_width = y[3];
    const PoolWindow w = pool_window_of(r);
    g_.kernel_h = w.kernel[0];
    g_.kernel_w = w.kernel[1];
    g_.stride_h = w.strides[0];
    g_.stride_w = w.strides[1];
    g_.pad_top = w.pads_begin[0];
    g_.pad_left = w.pads_begin[1];
    const ops::PoolAttributes attrs = *ops::pool_attributes(r.op);
    g_.is_max = attrs.is_max;
    g_.count_include_pad = attrs.count_include_pad;
    for (int64_t h = 0; h <= g_.kernel_h; ++h)
      for (int64_t w = 0; w <= g_.kernel_w; ++w) {
        const int64_t count = g_.count_include_pad ? g_.kernel_h * g_.kernel_w : h * w;
        reciprocals_.push_back(count > 0 ? 1.f / float(count) : 0.f);
      }
    g_.reciprocals = reciprocals_.data();
    threads_ = std::max(1, r.threads);
    scratch_bytes_ = threads_ * g_.width * g_.channels * int64_t(sizeof(float));
  }

  void run(const KernelArgs& args) override {
    const float* in = args.inputs[0]->data<float>();
    float* out = args.outputs[0]->data<float>();
    const int64_t rows = g_.groups * g_.out_height;
    const int64_t in_group = g_.height * g_.width * g_.channels;
    const int64_t out_row = g_.out_width * g_.channels;
    const bool share = rows > 1 && rows * out_row >= kPoolShareValues;
#pragma omp parallel for schedule(static) num_threads(threads_) if (share)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t group = row / g_.out_height;
      const float* from = in + group * in_group;
      float* columns =
          static_cast<float*>(args.scratch) + omp_get_thread_num() * g_.width * g_.channels;
      if (g_.is_max)
        pool_row<true>(g_, from, out + row * out_row, row % g_.out_height, columns);
      else
        pool_row<false>(g_, from, out + row * out_row, row % g_.out_height, columns);
    }
  }

 private:
  PoolGeometry g_{};
  std::vector<float> reciprocals_;  // g_.reciprocals
  int threads_ = 1;
};

std::unique_ptr<Kernel> vector_pool_prepare(const NodeRequest& r) {
  return std::make_unique<VectorPoolKernel>(r);
}

}  // namespace

KernelFamily pool_family() {
  return {"cpu_pool",           true, &vector_pool_serves, &vector_pool_supports,
          &vector_pool_prepare, false};
}

}  // namespace strata::kernels::cpu
