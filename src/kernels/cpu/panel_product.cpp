#include "kernels/cpu/panel_product.h"

#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/vector_math.h"

namespace strata::kernels::cpu {

namespace {

constexpr int64_t kPanel = 16;  // floats per AVX-512 register, two AVX2 registers

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// ROWS rows × PANELS panels: ROWS·PANELS accumulators, each weight vector loaded once for every
// row, each input value broadcast once for every panel.
template <int ROWS, int PANELS>
__attribute__((target("avx512f"))) void block(const float* a, int64_t lda, const float* panel,
                                              int64_t k, int64_t stride, float* out, int64_t ldo,
                                              __mmask16 last_mask) {
  __m512 acc[ROWS][PANELS];
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p) {
      const __mmask16 m = p == PANELS - 1 ? last_mask : __mmask16(0xffff);
      acc[r][p] = _mm512_maskz_loadu_ps(m, out + r * ldo + p * kPanel);
    }
  for (int64_t j = 0; j < k; ++j) {
    __m512 w[PANELS];
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p) w[p] = _mm512_loadu_ps(panel + p * stride + j * kPanel);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      const __m512 x = _mm512_set1_ps(a[r * lda + j]);
#pragma GCC unroll 4
      for (int p = 0; p < PANELS; ++p) acc[r][p] = _mm512_fmadd_ps(x, w[p], acc[r][p]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p) {
      const __mmask16 m = p == PANELS - 1 ? last_mask : __mmask16(0xffff);
      _mm512_mask_storeu_ps(out + r * ldo + p * kPanel, m, acc[r][p]);
    }
}

// One row (the matrix–vector product of a batch-1 step, which streams the weights from cache
// once per step): PANELS panels with two sets of accumulators, for even and odd k, so that
// 2·PANELS independent sums hide the FMA latency and the loads keep the L2 busy (8 panels: 1.3×
// the throughput of 4 with one set on a 1 MiB matrix, bench/RESULTS.md "Recurrent steps").
template <int PANELS>
__attribute__((target("avx512f"))) void row(const float* a, const float* panel, int64_t k,
                                            float* out, __mmask16 last_mask) {
  __m512 even[PANELS], odd[PANELS];
#pragma GCC unroll 8
  for (int p = 0; p < PANELS; ++p) {
    const __mmask16 m = p == PANELS - 1 ? last_mask : __mmask16(0xffff);
    even[p] = _mm512_maskz_loadu_ps(m, out + p * kPanel);
    odd[p] = _mm512_setzero_ps();
  }
  const int64_t stride = k * kPanel;
  int64_t j = 0;
  for (; j + 1 < k; j += 2) {
    const __m512 x0 = _mm512_set1_ps(a[j]), x1 = _mm512_set1_ps(a[j + 1]);
#pragma GCC unroll 8
    for (int p = 0; p < PANELS; ++p) {
      const float* w = panel + p * stride + j * kPanel;
      even[p] = _mm512_fmadd_ps(x0, _mm512_loadu_ps(w), even[p]);
      odd[p] = _mm512_fmadd_ps(x1, _mm512_loadu_ps(w + kPanel), odd[p]);
    }
  }
  if (j < k) {
    const __m512 x0 = _mm512_set1_ps(a[j]);
#pragma GCC unroll 8
    for (int p = 0; p < PANELS; ++p)
      even[p] = _mm512_fmadd_ps(x0, _mm512_loadu_ps(panel + p * stride + j * kPanel), even[p]);
  }
#pragma GCC unroll 8
  for (int p = 0; p < PANELS; ++p) {
    const __mmask16 m = p == PANELS - 1 ? last_mask : __mmask16(0xffff);
    _mm512_mask_storeu_ps(out + p * kPanel, m, _mm512_add_ps(even[p], odd[p]));
  }
}

// The same with AVX2: each panel in two halves of 8, the last panel's columns past `last` masked.
template <int ROWS, int PANELS>
__attribute__((target("avx2,fma"))) void block_avx2(const float* a, int64_t lda, const float* panel,
                                                    int64_t k, float* out, int64_t ldo,
                                                    int64_t last) {
  __m256i mask[PANELS][2];
  for (int p = 0; p < PANELS; ++p)
    for (int h = 0; h < 2; ++h)
      mask[p][h] = p < PANELS - 1 ? _mm256_set1_epi32(-1)
                                  : tail_mask8(std::clamp<int64_t>(last - 8 * h, 0, 8));
  __m256 acc[ROWS][PANELS][2];
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p)
      for (int h = 0; h < 2; ++h)
        acc[r][p][h] = _mm256_maskload_ps(out + r * ldo + p * kPanel + 8 * h, mask[p][h]);
  const int64_t stride = k * kPanel;
  for (int64_t j = 0; j < k; ++j) {
    __m256 w[PANELS][2];
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p)
      for (int h = 0; h < 2; ++h)
        w[p][h] = _mm256_loadu_ps(panel + p * stride + j * kPanel + 8 * h);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      const __m256 x = _mm256_set1_ps(a[r * lda + j]);
#pragma GCC unroll 4
      for (int p = 0; p < PANELS; ++p)
        for (int h = 0; h < 2; ++h) acc[r][p][h] = _mm256_fmadd_ps(x, w[p][h], acc[r][p][h]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int p = 0; p < PANELS; ++p)
      for (int h = 0; h < 2; ++h)
        _mm256_maskstore_ps(out + r * ldo + p * kPanel + 8 * h, mask[p][h], acc[r][p][h]);
}

#pragma GCC diagnostic pop

using Block = void (*)(const float*, int64_t, const float*, int64_t, int64_t, float*, int64_t,
                       __mmask16);
using BlockAvx2 = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t);

// At most 2 rows × 2 panels: 8 accumulators and 4 weight vectors of AVX2's 16 registers.
BlockAvx2 block_avx2_for(int64_t rows, int64_t panels) {
  if (rows == 1) return panels == 1 ? &block_avx2<1, 1> : &block_avx2<1, 2>;
  return panels == 1 ? &block_avx2<2, 1> : &block_avx2<2, 2>;
}

using Row = void (*)(const float*, const float*, int64_t, float*, __mmask16);

Row row_for(int64_t panels) {
  switch (panels) {
    case 1: return &row<1>;
    case 2: return &row<2>;
    case 3: return &row<3>;
    case 4: return &row<4>;
    case 5: return &row<5>;
    case 6: return &row<6>;
    case 7: return &row<7>;
    default: return &row<8>;
  }
}

template <int ROWS>
Block block_for(int64_t panels) {
  switch (panels) {
    case 1: return &block<ROWS, 1>;
    case 2: return &block<ROWS, 2>;
    case 3: return &block<ROWS, 3>;
    default: return &block<ROWS, 4>;
  }
}

Block block_for(int64_t rows, int64_t panels) {
  switch (rows) {
    case 1: return block_for<1>(panels);
    case 2: return block_for<2>(panels);
    case 3: return block_for<3>(panels);
    default: return block_for<4>(panels);
  }
}

}  // namespace

PanelMatrix::PanelMatrix(const float* w, int64_t outputs, int64_t inputs)
    : outputs_(outputs), inputs_(inputs), simd_(simd_level()) {
  const int64_t panels = (outputs + kPanel - 1) / kPanel;
  panels_.assign(size_t(panels * inputs * kPanel), 0.0f);
  for (int64_t m = 0; m < outputs; ++m)
    for (int64_t k = 0; k < inputs; ++k)
      panels_[size_t((m / kPanel * inputs + k) * kPanel + m % kPanel)] = w[m * inputs + k];
}

void PanelMatrix::multiply_add(const float* a, int64_t lda, int64_t rows, float* out,
                               int64_t ldo) const {
  const int64_t panels = (outputs_ + kPanel - 1) / kPanel;
  if (simd_ != Simd::kAvx512) {
    for (int64_t r = 0; r < rows; r += 2) {
      const int64_t block_rows = std::min<int64_t>(2, rows - r);
      for (int64_t p = 0; p < panels; p += 2) {
        const int64_t block_panels = std::min<int64_t>(2, panels - p);
        const int64_t columns = std::min(outputs_ - p * kPanel, block_panels * kPanel);
        block_avx2_for(block_rows, block_panels)(
            a + r * lda, lda, &panels_[size_t(p * inputs_ * kPanel)], inputs_,
            out + r * ldo + p * kPanel, ldo, columns - (block_panels - 1) * kPanel);
      }
    }
    return;
  }
  if (rows == 1) {
    for (int64_t p = 0; p < panels; p += 8) {
      const int64_t block_panels = std::min<int64_t>(8, panels - p);
      const int64_t last = std::min(outputs_ - p * kPanel, block_panels * kPanel) -
                           (block_panels - 1) * kPanel;  // 1..16
      row_for(block_panels)(a, &panels_[size_t(p * inputs_ * kPanel)], inputs_, out + p * kPanel,
                            __mmask16((1u << last) - 1));
    }
    return;
  }
  // Many rows (a whole sequence's input projection): the weights in chunks of kDepth inputs ×
  // 4 panels (32 KiB, in L1) reused by every row before the next chunk, not streamed from L2 once
  // per 4 rows.
  constexpr int64_t kDepth = 128;
  const int64_t stride = inputs_ * kPanel;  // from one panel to the next
  for (int64_t k0 = 0; k0 < inputs_; k0 += kDepth) {
    const int64_t depth = std::min(kDepth, inputs_ - k0);
    for (int64_t p = 0; p < panels; p += 4) {
      const int64_t block_panels = std::min<int64_t>(4, panels - p);
      const int64_t columns = std::min(outputs_ - p * kPanel, block_panels * kPanel);
      const int64_t last = columns - (block_panels - 1) * kPanel;  // 1..16
      const __mmask16 last_mask = __mmask16((1u << last) - 1);
      const float* panel = &panels_[size_t((p * inputs_ + k0) * kPanel)];
      for (int64_t r = 0; r < rows; r += 4) {
        const int64_t block_rows = std::min<int64_t>(4, rows - r);
        block_for(block_rows, block_panels)(a + r * lda + k0, lda, panel, depth, stride,
                                            out + r * ldo + p * kPanel, ldo, last_mask);
      }
    }
  }
}

bool panel_product_available() {
  return simd_level() >= Simd::kAvx2;
}

}  // namespace strata::kernels::cpu
