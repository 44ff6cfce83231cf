#include "kernels/cpu/int8_gemm.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/simd.h"

namespace strata::kernels::cpu {

namespace {

constexpr int64_t kGemmColumns = 16;  // a panel: two registers of 8 int32 sums
// 6 rows × 2 registers of sums, 2 weight registers and a broadcast: 15 of AVX2's 16 registers.
constexpr int kGemmRows = 6;
// k-pairs per pass over the columns: a panel's slice (16 KB) stays in L1 while every row block
// reads it, A's slice (rows × 1 KB) in L2 while every panel reads it. Up to kGemmOnePass pairs
// (BERT's k = 768) run in one pass: storing and reloading the sums cost more than the slice
// outgrowing L1 a little (measured on Zen 3).
constexpr int64_t kGemmPairs = 256, kGemmOnePass = 384;
// Below this many multiply-adds a product runs on one thread (waking others costs more).
constexpr double kGemmShareMacs = double(1 << 21);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// AVX2 without FMA: the float32 output's product and sum must round separately, as the
// reference kernel's do.
#define STRATA_INT8_GEMM __attribute__((target("avx2")))
// Small steps inlined into their loops (as calls, each reloaded its constants).
#define STRATA_INT8_GEMM_INLINE __attribute__((target("avx2"), always_inline)) inline

// Lanes below `left` (clamped to 0..8) set.
STRATA_INT8_GEMM inline __m256i int8_gemm_lanes(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(std::clamp<int64_t>(left, 0, 8))),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 4-lane (64-bit) masks: lanes below `left` (clamped to 0..4) set.
STRATA_INT8_GEMM_INLINE __m256i int8_gemm_lanes64(int64_t left) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(std::clamp<int64_t>(left, 0, 4)),
                            _mm256_setr_epi64x(0, 1, 2, 3));
}

// The per-column values of the requantization (Int8Requantization) for columns column ..
// column + 7, the first `left` of them real (no multiplier or bias is read past them).
struct Int8RequantizeColumns {
  __m256d multiplier[2], bias[2];
};
STRATA_INT8_GEMM_INLINE Int8RequantizeColumns int8_requantize_columns(const Int8Requantization& q,
                                                                      int64_t column,
                                                                      int64_t left) {
  Int8RequantizeColumns c;
  for (int h = 0; h < 2; ++h) {
    const int64_t at = column + 4 * h;
    const bool full = left >= 4 * h + 4;
    const __m256i mask = int8_gemm_lanes64(left - 4 * h);
    c.multiplier[h] =
        full ? _mm256_loadu_pd(q.multiplier + at) : _mm256_maskload_pd(q.multiplier + at, mask);
    c.bias[h] = !q.bias ? _mm256_setzero_pd()
                : full  ? _mm256_loadu_pd(q.bias + at)
                        : _mm256_maskload_pd(q.bias + at, mask);
  }
  return c;
}

// 8 sums of those columns requantized into the low 8 bytes. Each step is the reference's double
// operation: an exact int32 → double conversion and bias add (+0 without a bias: exact too), the
// product, rounding half to even, the zero point, saturation; then packed to bytes.
template <class Q>
STRATA_INT8_GEMM_INLINE __m128i int8_requantize8(__m256i sums, const Int8RequantizeColumns& c,
                                                 double zero_point) {
  const __m256d lo = _mm256_set1_pd(double(std::numeric_limits<Q>::lowest()));
  const __m256d hi = _mm256_set1_pd(double(std::numeric_limits<Q>::max()));
  const __m256d zero = _mm256_set1_pd(zero_point);
  __m128i quarter[2];
  for (int h = 0; h < 2; ++h) {
    __m256d v = _mm256_cvtepi32_pd(h == 0 ? _mm256_castsi256_si128(sums)
                                          : _mm256_extracti128_si256(sums, 1));
    v = _mm256_round_pd(_mm256_mul_pd(_mm256_add_pd(v, c.bias[h]), c.multiplier[h]),
                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_pd(_mm256_max_pd(_mm256_add_pd(v, zero), lo), hi);
    quarter[h] = _mm256_cvtpd_epi32(v);  // a whole number within Q: exact
  }
  const __m128i words = _mm_packs_epi32(quarter[0], quarter[1]);  // within Q: no saturation
  if constexpr (std::is_signed_v<Q>)
    return _mm_packs_epi16(words, words);
  else
    return _mm_packus_epi16(words, words);
}

// Stores the first `count` (0..8) of 8 bytes.
STRATA_INT8_GEMM_INLINE void int8_gemm_store8(void* y, __m128i bytes, int64_t count) {
  if (count >= 8) {
    _mm_storel_epi64(static_cast<__m128i*>(y), bytes);
  } else if (count > 0) {
    alignas(16) uint8_t staged[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(staged), bytes);
    std::memcpy(y, staged, size_t(count));
  }
}

// Where a block's sums go at the end of a pass; pointers at the block's first row and column.
struct Int8BlockOut {
  void* out;  // int32 sums; float32 on the last pass of a float output (in the same bytes)
  int64_t ld;
  int64_t columns;  // 1..16
  bool accumulate;  // add to the sums of the earlier passes
  bool to_float;    // the last pass of a float output
  const float* scale;
  bool scale_per_column;
  const float* bias;
  // The last pass of an 8-bit output: requantized into y (ldy bytes a row) from the registers.
  const Int8Requantization* requantize;
  int64_t column;  // the block's first column, for the requantization's per-column values
  uint8_t* y;
  int64_t ldy;
};

// A block's sums (rows × 16, staged in L1) requantized into o.y, 8 columns' values at a time.
template <class Q>
__attribute__((noinline)) STRATA_INT8_GEMM void int8_gemm_requantize_block(const int32_t* staged,
                                                                           int rows,
                                                                           const Int8BlockOut& o) {
  for (int h = 0; h < 2; ++h) {
    const int64_t left = o.columns - 8 * h;
    if (left <= 0) break;
    const Int8RequantizeColumns c = int8_requantize_columns(*o.requantize, o.column + 8 * h, left);
    for (int r = 0; r < rows; ++r) {
      const __m256i sums =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(staged + r * kGemmColumns + 8 * h));
      int8_gemm_store8(o.y + r * o.ldy + 8 * h,
                       int8_requantize8<Q>(sums, c, o.requantize->zero_point), left);
    }
  }
}

// ROWS rows × 16 columns over `pairs` k-pairs: every pair of A's (a broadcast int32 holding two
// int16) times 8 columns' pairs of B gives 8 exact int32 pair sums (vpmaddwd).
template <int ROWS>
STRATA_INT8_GEMM void int8_gemm_block(const int16_t* a, int64_t lda, const int16_t* panel,
                                      int64_t pairs, const Int8BlockOut& o) {
  const bool full = o.columns == kGemmColumns;
  const __m256i mask[2] = {int8_gemm_lanes(o.columns), int8_gemm_lanes(o.columns - 8)};
  int32_t* c = static_cast<int32_t*>(o.out);
  __m256i acc[ROWS][2];
#pragma GCC unroll 6
  for (int r = 0; r < ROWS; ++r)
    for (int h = 0; h < 2; ++h) {
      int32_t* at = c + r * o.ld + 8 * h;
      acc[r][h] = !o.accumulate ? _mm256_setzero_si256()
                  : full        ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))
                                : _mm256_maskload_epi32(at, mask[h]);
    }
  for (int64_t j = 0; j < pairs; ++j) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32 * j));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 32 * j + 16));
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r) {
      int32_t two;
      std::memcpy(&two, a + r * lda + 2 * j, sizeof(two));
      const __m256i x = _mm256_set1_epi32(two);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
    }
  }
  if (o.requantize) {
    // Through L1 to a function of its own: inlined here, the requantization's registers made the
    // compiler spill the sums inside the loop above (resnet50_qdq 75 → 115 ms).
    alignas(32) int32_t staged[ROWS * kGemmColumns];
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r)
      for (int h = 0; h < 2; ++h)
        _mm256_store_si256(reinterpret_cast<__m256i*>(staged + r * kGemmColumns + 8 * h),
                           acc[r][h]);
    if (o.requantize->y_signed)
      int8_gemm_requantize_block<int8_t>(staged, ROWS, o);
    else
      int8_gemm_requantize_block<uint8_t>(staged, ROWS, o);
    return;
  }
  if (!o.to_float) {
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r)
      for (int h = 0; h < 2; ++h) {
        int32_t* at = c + r * o.ld + 8 * h;
        if (full)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(at), acc[r][h]);
        else
          _mm256_maskstore_epi32(at, mask[h], acc[r][h]);
      }
    return;
  }
  __m256 scale[2], bias[2];
  for (int h = 0; h < 2; ++h) {
    scale[h] = o.scale_per_column ? _mm256_maskload_ps(o.scale + 8 * h, mask[h])
                                  : _mm256_set1_ps(o.scale[0]);
    bias[h] = o.bias ? _mm256_maskload_ps(o.bias + 8 * h, mask[h]) : _mm256_setzero_ps();
  }
  float* y = static_cast<float*>(o.out);
#pragma GCC unroll 6
  for (int r = 0; r < ROWS; ++r)
    for (int h = 0; h < 2; ++h) {
      __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][h]), scale[h]);
      if (o.bias) v = _mm256_add_ps(v, bias[h]);
      float* at = y + r * o.ld + 8 * h;
      if (full)
        _mm256_storeu_ps(at, v);
      else
        _mm256_maskstore_ps(at, mask[h], v);
    }
}

using Int8GemmBlock = void (*)(const int16_t*, int64_t, const int16_t*, int64_t,
                               const Int8BlockOut&);

Int8GemmBlock int8_gemm_block_for(int64_t rows) {
  switch (rows) {
    case 1: return &int8_gemm_block<1>;
    case 2: return &int8_gemm_block<2>;
    case 3: return &int8_gemm_block<3>;
    case 4: return &int8_gemm_block<4>;
    case 5: return &int8_gemm_block<5>;
    default: return &int8_gemm_block<6>;
  }
}

// A pass's slice of an int8 panel as int16 (`pairs` pairs of 16 columns).
STRATA_INT8_GEMM void int8_gemm_widen_panel(const int8_t* panel, int64_t pairs, int16_t* dst) {
  for (int64_t i = 0; i < pairs * kGemmColumns * 2; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(panel + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_cvtepi8_epi16(v));
  }
}

// One row of A less its zero point as int16 (exact: both are 8-bit), zeros up to `width`.
template <class T>
STRATA_INT8_GEMM void int8_gemm_widen(const T* a, int64_t k, int32_t zero, int16_t* dst,
                                      int64_t width) {
  const __m256i z = _mm256_set1_epi16(int16_t(zero));
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m256i w = std::is_signed_v<T> ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_sub_epi16(w, z));
  }
  for (; i < k; ++i) dst[i] = int16_t(int32_t(a[i]) - zero);
  for (; i < width; ++i) dst[i] = 0;
}

// One row of n sums requantized, 8 at a time (the last 1..7 masked).
template <class Q>
STRATA_INT8_GEMM void int8_requantize_row(const int32_t* sums, int64_t n,
                                          const Int8Requantization& q, Q* y) {
  for (int64_t j = 0; j < n; j += 8) {
    const int64_t left = std::min<int64_t>(8, n - j);
    const __m256i v = left == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j))
                                : _mm256_maskload_epi32(sums + j, int8_gemm_lanes(left));
    int8_gemm_store8(
        y + j, int8_requantize8<Q>(v, int8_requantize_columns(q, j, left), q.zero_point), left);
  }
}

#pragma GCC diagnostic pop

}  // namespace

void int8_requantize(const int32_t* sums, int64_t rows, int64_t n, const Int8Requantization& q,
                     void* y) {
  for (int64_t r = 0; r < rows; ++r) {
    if (q.y_signed)
      int8_requantize_row(sums + r * n, n, q, static_cast<int8_t*>(y) + r * n);
    else
      int8_requantize_row(sums + r * n, n, q, static_cast<uint8_t*>(y) + r * n);
  }
}

Int8Gemm::Int8Gemm(const int8_t* b, int64_t k, int64_t n, const std::vector<int32_t>& b_zero)
    : k_(k), n_(n), pairs_((k + 1) / 2) {
  const int64_t panels = (n + kGemmColumns - 1) / kGemmColumns;
  const size_t size = size_t(panels * pairs_ * kGemmColumns * 2);
  const bool zero_points = std::any_of(b_zero.begin(), b_zero.end(), [](int32_t z) { return z; });
  if (zero_points)
    wide_.assign(size, 0);
  else
    narrow_.assign(size, 0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = size_t(
          ((j / kGemmColumns * pairs_ + i / 2) * kGemmColumns + j % kGemmColumns) * 2 + i % 2);
      if (zero_points)
        wide_[at] = int16_t(int32_t(b[i * n + j]) - b_zero[b_zero.size() == 1 ? 0 : size_t(j)]);
      else
        narrow_[at] = b[i * n + j];
    }
}

namespace {

// int16 per row of widened A: 2·pairs rounded up to 32 bytes.
int64_t int8_gemm_lda(int64_t pairs) {
  return (2 * pairs + 15) / 16 * 16;
}

// int16 of one thread's widened panel slice.
int64_t int8_gemm_slice(int64_t pairs) {
  return (pairs <= kGemmOnePass ? pairs : kGemmPairs) * kGemmColumns * 2;
}

}  // namespace

int64_t Int8Gemm::scratch_bytes(int64_t rows, int threads) const {
  const int64_t slices = narrow_.empty() ? 0 : std::max(1, threads) * int8_gemm_slice(pairs_);
  return (rows * int8_gemm_lda(pairs_) + slices) * int64_t(sizeof(int16_t));
}

void Int8Gemm::multiply(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                        const Int8GemmFloatOutput* float_output, void* scratch, int threads) const {
  multiply_into(a, a_signed, a_zero, rows, out, float_output, nullptr, nullptr, scratch, threads);
}

void Int8Gemm::multiply_requantized(const void* a, bool a_signed, int32_t a_zero, int64_t rows,
                                    const Int8Requantization& requantization, void* y, void* sums,
                                    void* scratch, int threads) const {
  multiply_into(a, a_signed, a_zero, rows, sums, nullptr, &requantization, y, scratch, threads);
}

void Int8Gemm::multiply_into(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                             const Int8GemmFloatOutput* float_output,
                             const Int8Requantization* requantization, void* y, void* scratch,
                             int threads) const {
  const int64_t lda = int8_gemm_lda(pairs_);
  int16_t* wide = static_cast<int16_t*>(scratch);
  const int64_t panels = (n_ + kGemmColumns - 1) / kGemmColumns;
  const int64_t passes =
      pairs_ <= kGemmOnePass ? 1 : std::max<int64_t>(1, (pairs_ + kGemmPairs - 1) / kGemmPairs);
  const int64_t per_pass = std::max<int64_t>(1, (pairs_ + passes - 1) / passes);
  const double macs = double(rows) * double(k_) * double(n_);
  const int team = macs >= kGemmShareMacs
                       ? int(std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, panels)))
                       : 1;
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    int16_t* slice = wide + rows * lda + t * int8_gemm_slice(pairs_);
    for (int64_t r = rows * t / count; r < rows * (t + 1) / count; ++r) {
      if (a_signed)
        int8_gemm_widen(static_cast<const int8_t*>(a) + r * k_, k_, a_zero, wide + r * lda,
                        2 * pairs_);
      else
        int8_gemm_widen(static_cast<const uint8_t*>(a) + r * k_, k_, a_zero, wide + r * lda,
                        2 * pairs_);
    }
#pragma omp barrier
    // Each thread owns a range of column panels through every pass.
    const int64_t first = panels * t / count, last = panels * (t + 1) / count;
    for (int64_t j0 = 0; j0 < pairs_; j0 += per_pass) {
      const int64_t pairs = std::min(per_pass, pairs_ - j0);
      const bool final_pass = j0 + pairs == pairs_;
      for (int64_t p = first; p < last; ++p) {
        const int64_t column = p * kGemmColumns;
        Int8BlockOut o{};
        o.ld = n_;
        o.columns = std::min(kGemmColumns, n_ - column);
        o.accumulate = j0 > 0;
        o.to_float = final_pass && float_output;
        if (o.to_float) {
          o.scale_per_column = float_output->scale_per_column;
          o.scale = float_output->scale + (o.scale_per_column ? column : 0);
          o.bias = float_output->bias ? float_output->bias + column : nullptr;
        }
        if (final_pass && requantization) {
          o.requantize = requantization;
          o.column = column;
          o.ldy = n_;
        }
        const int64_t offset = (p * pairs_ + j0) * kGemmColumns * 2;
        const int16_t* panel = slice;
        if (narrow_.empty())
          panel = wide_.data() + offset;
        else
          int8_gemm_widen_panel(narrow_.data() + offset, pairs, slice);
        for (int64_t r = 0; r < rows; r += kGemmRows) {
          const int64_t block_rows = std::min<int64_t>(kGemmRows, rows - r);
          o.out = static_cast<int32_t*>(out) + r * n_ + column;
          if (o.requantize) o.y = static_cast<uint8_t*>(y) + r * n_ + column;
          int8_gemm_block_for(block_rows)(wide + r * lda + 2 * j0, lda, panel, pairs, o);
        }
      }
    }
  }
}

bool int8_gemm_available() {
  return simd_level() >= Simd::kAvx2;
}

}  // namespace strata::kernels::cpu
