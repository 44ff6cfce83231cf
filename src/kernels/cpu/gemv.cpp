// Matrix products of one row with constant weights (a batch-1 classifier's Gemm or MatMul): y =
// alpha · x · B + beta · C. Such a product reads every weight once, so it runs at the memory's
// speed or not at all; oneDNN 2.6's matmul, written for blocks of rows, streamed alexnet's
// 4096 × 9216 classifier weights at 11.7 GB/s where this loop reaches 14.5 (15.5 measured by
// `strata machine`). The weights stay as the model stores them when each output's are contiguous
// (Gemm with transB), else are transposed once at prepare; four outputs at a time, each with two
// accumulators of 16 lanes, the weights 2 KiB ahead prefetched; the outputs shared among the
// threads. AVX-512 only (elsewhere oneDNN's matmul runs it).
#include <immintrin.h>
#include <omp.h>

#include <algorithm>

#include "kernels/cpu/simd.h"
#include "kernels/kernel.h"
#include "kernels/omp_threads.h"
#include "ops/gemm.h"

namespace strata::kernels::cpu {

namespace {

// Below this many weights oneDNN's matmul is as fast (they stay in cache between runs).
constexpr int64_t kMinWeights = int64_t(1) << 16;

bool gemv_serves(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "Gemm" || node.op_type == "MatMul");
}

// One row of A times a constant 2-D B: its inner size, outputs and Gemm attributes.
struct Shape1 {
  int64_t k = 0, n = 0;
  bool trans_b = false;
  float alpha = 1, beta = 1;
};

std::optional<Shape1> one_row_product(const NodeRequest& r) {
  if (!r.has_input(0) || !r.has_input(1) || !r.input(1).value) return std::nullopt;
  const std::vector<int64_t> a = r.input(0).shape.values(), b = r.input(1).shape.values();
  if (b.size() != 2) return std::nullopt;
  Shape1 s;
  if (const std::optional<ops::GemmAttributes> g = ops::gemm_attributes(r.op)) {
    if (g->trans_a || a.size() != 2 || a[0] != 1) return std::nullopt;
    s.trans_b = g->trans_b;
    s.alpha = g->alpha;
    s.beta = g->beta;
  } else {  // MatMul: A is [K], or [1, ..., 1, K]
    for (size_t d = 0; d + 1 < a.size(); ++d)
      if (a[d] != 1) return std::nullopt;
  }
  s.k = s.trans_b ? b[1] : b[0];
  s.n = s.trans_b ? b[0] : b[1];
  if (a.empty() || a.back() != s.k) return std::nullopt;
  return s;
}

Verdict gemv_supports(const NodeRequest& r) {
  if (simd_level() != Simd::kAvx512) return Verdict::no("strata's GEMV needs AVX-512");
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (r.has_input(i) && r.input(i).dtype != DType::kF32) return Verdict::no("f32 operands only");
  const std::optional<Shape1> s = one_row_product(r);
  if (!s) return Verdict::no("not one row of A times constant 2-D weights");
  if (s->k * s->n < kMinWeights) return Verdict::no("weights small enough to stay in cache");
  if (r.has_input(2)) {
    const ops::Meta& c = r.input(2);
    if (!c.value) return Verdict::no("C is known only while running");
    const int64_t count = c.value->numel();
    const std::vector<int64_t> shape = c.shape.values();
    const bool row = count == s->n && (shape.size() == 1 || (shape.size() == 2 && shape[0] == 1));
    if (count != 1 && !row) return Verdict::no("C is not one value or one row of N");
  }
  return Verdict::yes("one row times constant weights: a product at memory speed");
}

// GCC 12 warns that the intrinsics' own _mm512_undefined_ps() is used uninitialized (a false
// positive in its headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// ROWS outputs: y[r] = Σ_j x[j] · w[r·k + j] for r < ROWS.
template <int ROWS>
__attribute__((target("avx512f"))) void dot_rows(const float* x, const float* w, int64_t k,
                                                 float* y) {
  __m512 acc[ROWS][2];
  for (int r = 0; r < ROWS; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  int64_t j = 0;
  for (; j + 32 <= k; j += 32) {
    const __m512 x0 = _mm512_loadu_ps(x + j), x1 = _mm512_loadu_ps(x + j + 16);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      const float* row = w + r * k + j;
      _mm_prefetch(reinterpret_cast<const char*>(row + 512), _MM_HINT_T0);
      acc[r][0] = _mm512_fmadd_ps(x0, _mm512_loadu_ps(row), acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(x1, _mm512_loadu_ps(row + 16), acc[r][1]);
    }
  }
  for (; j < k; j += 16) {
    const __mmask16 m = __mmask16(k - j >= 16 ? 0xffff : (1u << (k - j)) - 1);
    const __m512 x0 = _mm512_maskz_loadu_ps(m, x + j);
    for (int r = 0; r < ROWS; ++r)
      acc[r][0] = _mm512_fmadd_ps(x0, _mm512_maskz_loadu_ps(m, w + r * k + j), acc[r][0]);
  }
  for (int r = 0; r < ROWS; ++r) y[r] = _mm512_reduce_add_ps(_mm512_add_ps(acc[r][0], acc[r][1]));
}

#pragma GCC diagnostic pop

class GemvKernel final : public Kernel {
 public:
  explicit GemvKernel(const NodeRequest& r) : shape_(*one_row_product(r)) {
    name_ = "cpu:gemv:avx512";
    const int64_t k = shape_.k, n = shape_.n;
    weights_ = r.input(1).value;
    if (!shape_.trans_b) {  // [K, N]: each output's weights a column; transposed once
      transposed_.resize(size_t(k * n));
      const float* b = weights_->data<float>();
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < n; ++j) transposed_[size_t(j * k + i)] = b[i * n + j];
      packed_bytes_ = int64_t(transposed_.size() * sizeof(float));
    }
    if (r.has_input(2) && shape_.beta != 0) {
      const std::vector<double> c = r.input(2).value->to_double();
      addend_.resize(size_t(n));
      for (int64_t j = 0; j < n; ++j)
        addend_[size_t(j)] = shape_.beta * float(c[c.size() == 1 ? 0 : size_t(j)]);
    }
    threads_ = pass_threads(k * n, r.threads);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    const float* w = transposed_.empty() ? weights_->data<float>() : transposed_.data();
    float* y = args.outputs[0]->data<float>();
    const int64_t k = shape_.k, n = shape_.n, blocks = (n + 3) / 4;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t first = b * 4;
      switch (std::min<int64_t>(4, n - first)) {
        case 1: dot_rows<1>(x, w + first * k, k, y + first); break;
        case 2: dot_rows<2>(x, w + first * k, k, y + first); break;
        case 3: dot_rows<3>(x, w + first * k, k, y + first); break;
        default: dot_rows<4>(x, w + first * k, k, y + first); break;
      }
      for (int64_t j = first; j < std::min(first + 4, n); ++j) {
        y[j] *= shape_.alpha;
        if (!addend_.empty()) y[j] += addend_[size_t(j)];
      }
    }
  }

 private:
  Shape1 shape_;
  std::shared_ptr<const Tensor> weights_;
  std::vector<float> transposed_;  // [N, K] when the model stores B as [K, N]
  std::vector<float> addend_;      // beta · C per output, or empty
  int threads_ = 1;
};

std::unique_ptr<Kernel> gemv_prepare(const NodeRequest& r) {
  return std::make_unique<GemvKernel>(r);
}

}  // namespace

KernelFamily gemv_family() {
  return {"cpu_gemv", false, &gemv_serves, &gemv_supports, &gemv_prepare, false};
}

}  // namespace strata::kernels::cpu
