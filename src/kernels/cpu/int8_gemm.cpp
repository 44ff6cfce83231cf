#include "kernels/cpu/int8_gemm.h"

#include <fmt/format.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/cpu/int8_requantize_simd.h"
#include "kernels/cpu/simd.h"
#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

constexpr int64_t kGemmColumns = 16;  // a panel: two registers of 8 int32 sums
// Rows of a block. The int16 kernel: 6 rows × 2 registers of sums, 2 weight registers and a
// broadcast, 15 of AVX2's 16 registers. The byte kernel needs two more (a product and the ones),
// so it takes 4 rows (6 spilled a sum: 4 rows ran 1.2-1.6× faster on Zen 3).
constexpr int kGemmRows = 6, kGemmByteRows = 4;
// Steps of k (pairs for the int16 kernel, quads for the byte kernel: 64 bytes of a panel each) per
// pass over the columns: a panel's slice (16 KB) stays in L1 while every row block reads it, A's
// slice (rows × 1 KB) in L2 while every panel reads it. Up to kGemmOnePass steps run in one pass:
// storing and reloading the sums cost more than the slice outgrowing L1 a little (measured on
// Zen 3 with BERT's k = 768 in pairs).
constexpr int64_t kGemmSteps = 256, kGemmOnePass = 384;
// The byte kernel leaves A to the int16 kernel when more than one quad of k in this many has
// residuals: each costs two steps of the byte kernel's, which runs at most 4/3 as fast.
constexpr int64_t kGemmDenseResiduals = 8;
// The byte kernel takes A's bytes whole when B's weight fixes number at most one per this many
// quads of k of each panel.
constexpr int64_t kGemmFixShare = 32;
// Below this k the int16 kernel takes B without zero points too: clipping A's rows costs more than
// the byte kernel saves (k = 16, 24 and 32 ran 5-15% slower in the byte kernel on Zen 3).
constexpr int64_t kGemmClipMinK = 64;
// Below this many multiply-adds a product runs on one thread (waking others costs more; the
// session keeps small steps on one thread anyway when idle workers sleep). 2^20: mobilenet_v2_qdq's
// classifier, 1280 × 1000 weights read once, on two threads.
constexpr double kGemmShareMacs = double(1 << 20);

// A quad of k where a row of A leaves residuals (int8_gemm_split): 4 bytes above the clipped
// range and 4 below, each 0..127.
struct Int8Residual {
  int32_t quad;
  uint32_t above, below;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// AVX2 without FMA: the float32 output's product and sum must round separately, as the
// reference kernel's do.
#define STRATA_INT8_GEMM __attribute__((target("avx2")))
// Small steps inlined into their loops (as calls, each reloaded its constants).
#define STRATA_INT8_GEMM_INLINE __attribute__((target("avx2"), always_inline)) inline

// A panel's 16 columns' requantization values (int8_requantize_columns, 8 each), of which the
// first `columns` are real.
STRATA_INT8_GEMM void int8_requantize_panel(const Int8Requantization& q, int64_t column,
                                            int64_t columns, Int8RequantizeColumns* out) {
  for (int h = 0; h < 2; ++h) out[h] = int8_requantize_columns(q, column + 8 * h, columns - 8 * h);
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
  // Its per-column values for the block's 16 columns (8 each), set up once per panel.
  const Int8RequantizeColumns* requantize_columns;
  uint8_t* y;
  int64_t ldy;
};

// A block's sums (rows × 16, staged in L1) requantized into o.y: a full panel's 16 values a row
// at a time, else 8 columns' values at a time.
template <class Q>
__attribute__((noinline)) STRATA_INT8_GEMM void int8_gemm_requantize_block(const int32_t* staged,
                                                                           int rows,
                                                                           const Int8BlockOut& o) {
  const Int8RequantizeColumns* c = o.requantize_columns;
  const int32_t zero_point = o.requantize->zero_point;
  if (o.columns == kGemmColumns) {
    for (int r = 0; r < rows; ++r) {
      const auto* at = reinterpret_cast<const __m256i*>(staged + r * kGemmColumns);
      _mm_storeu_si128(
          reinterpret_cast<__m128i*>(o.y + r * o.ldy),
          int8_requantize16<Q>(_mm256_load_si256(at), _mm256_load_si256(at + 1), c, zero_point));
    }
    return;
  }
  for (int h = 0; h < 2; ++h) {
    const int64_t left = o.columns - 8 * h;
    if (left <= 0) break;
    for (int r = 0; r < rows; ++r) {
      const __m256i sums =
          _mm256_load_si256(reinterpret_cast<const __m256i*>(staged + r * kGemmColumns + 8 * h));
      int8_gemm_store8(o.y + r * o.ldy + 8 * h, int8_requantize8<Q>(sums, c[h], zero_point), left);
    }
  }
}

// A block's sums at the start of its pass: the sums of the earlier passes, else `start` (16
// values: the byte kernel's (c − a_zero)·Σ_k B[k, j] term), else 0.
template <int ROWS>
STRATA_INT8_GEMM_INLINE void int8_gemm_start(__m256i (&acc)[ROWS][2], const Int8BlockOut& o,
                                             const int32_t* start) {
  const bool full = o.columns == kGemmColumns;
  const __m256i mask[2] = {int8_gemm_lanes(o.columns), int8_gemm_lanes(o.columns - 8)};
  const int32_t* c = static_cast<const int32_t*>(o.out);
  for (int h = 0; h < 2; ++h) {
    const __m256i first = start
                              ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(start + 8 * h))
                              : _mm256_setzero_si256();
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r) {
      const int32_t* at = c + r * o.ld + 8 * h;
      acc[r][h] = !o.accumulate ? first
                  : full        ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))
                                : _mm256_maskload_epi32(at, mask[h]);
    }
  }
}

// A block's sums at the end of its pass: stored, converted to float32 or requantized (o).
template <int ROWS>
STRATA_INT8_GEMM_INLINE void int8_gemm_finish(__m256i (&acc)[ROWS][2], const Int8BlockOut& o) {
  const bool full = o.columns == kGemmColumns;
  const __m256i mask[2] = {int8_gemm_lanes(o.columns), int8_gemm_lanes(o.columns - 8)};
  int32_t* c = static_cast<int32_t*>(o.out);
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

// ROWS rows' sums over `steps` steps of k, the kernels' inner loop: each step broadcasts 4 bytes
// of each row of A (lda bytes apart) and multiplies them with 64 bytes of the panel, two registers
// of 8 columns, by `multiply` (8 int32 sums of the step's products per register).
template <int ROWS, class Multiply>
STRATA_INT8_GEMM_INLINE void int8_gemm_steps(__m256i (&acc)[ROWS][2], const uint8_t* a, int64_t lda,
                                             const uint8_t* panel, int64_t steps,
                                             const Multiply& multiply) {
  for (int64_t j = 0; j < steps; ++j) {
    const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 64 * j));
    const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 64 * j + 32));
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r) {
      int32_t four;
      std::memcpy(&four, a + r * lda + 4 * j, sizeof(four));
      const __m256i x = _mm256_set1_epi32(four);
      acc[r][0] = _mm256_add_epi32(acc[r][0], multiply(x, w0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], multiply(x, w1));
    }
  }
}

// A pair of A's int16 times 8 columns' pairs of B: 8 exact int32 pair sums (vpmaddwd).
struct Int8PairStep {
  STRATA_INT8_GEMM_INLINE __m256i operator()(__m256i x, __m256i w) const {
    return _mm256_madd_epi16(x, w);
  }
};

// The int16 kernel (B with zero points): ROWS rows × 16 columns over `pairs` k-pairs.
template <int ROWS>
STRATA_INT8_GEMM void int8_gemm_block_pairs(const int16_t* a, int64_t lda, const int16_t* panel,
                                            int64_t pairs, const Int8BlockOut& o) {
  __m256i acc[ROWS][2];
  int8_gemm_start<ROWS>(acc, o, nullptr);
  int8_gemm_steps<ROWS>(acc, reinterpret_cast<const uint8_t*>(a), lda * 2,
                        reinterpret_cast<const uint8_t*>(panel), pairs, Int8PairStep{});
  int8_gemm_finish<ROWS>(acc, o);
}

// 8 columns' sums of 4 products each, from 4 bytes of A (broadcast) and a register of B's
// [8 columns][4 k]: pairs of u8 × s8 summed in 16 bits (vpmaddubsw, exact for A's bytes ≤ 128),
// then the two pairs in 32 bits (vpmaddwd by ones).
STRATA_INT8_GEMM_INLINE __m256i int8_gemm_quad(__m256i x, __m256i w, __m256i ones) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(x, w), ones);
}

// 4 bytes of A times 8 columns' 4 bytes of B (int8_gemm_quad).
struct Int8QuadStep {
  __m256i ones;
  STRATA_INT8_GEMM_INLINE __m256i operator()(__m256i x, __m256i w) const {
    return int8_gemm_quad(x, w, ones);
  }
};

// What the byte kernel adds on a block's last pass: the rows' residuals (int8_gemm_split) where A
// is clipped, or the panel's weight fixes where A's bytes are whole.
struct Int8BlockResiduals {
  const Int8Residual* entries = nullptr;  // the block's first row's (clipped A), or nullptr
  const int32_t* counts = nullptr;
  int64_t stride = 0;             // entries per row
  const int8_t* panel = nullptr;  // the whole panel (every quad of k)
  // The panel's weight fixes (B's excess past the pairs that could saturate), A's bytes read at
  // `a` (the block's first row, lda apart).
  const Int8WeightFix* fixes = nullptr;
  int64_t fix_count = 0;
  const uint8_t* a = nullptr;
  int64_t lda = 0;
};

// The byte kernel (B without zero points): ROWS rows × 16 columns over `quads` quads of k, A's
// bytes clipped to 0..128 (int8_gemm_split), or whole against weights cut so that no pair of
// products saturates 16 bits; then, on the last pass, the rows' sparse residuals (the clipped-off
// parts, each 1..127 above or below) times their quads of B with the same instructions, or the
// weight fixes.
template <int ROWS>
STRATA_INT8_GEMM void int8_gemm_block_bytes(const uint8_t* a, int64_t lda, const int8_t* panel,
                                            int64_t quads, const int32_t* start,
                                            const Int8BlockResiduals* residuals,
                                            const Int8BlockOut& o) {
  __m256i acc[ROWS][2];
  int8_gemm_start<ROWS>(acc, o, start);
  const __m256i ones = _mm256_set1_epi16(1);
  int8_gemm_steps<ROWS>(acc, a, lda, reinterpret_cast<const uint8_t*>(panel), quads,
                        Int8QuadStep{ones});
  if (residuals && residuals->entries) {
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r) {
      const Int8Residual* e = residuals->entries + r * residuals->stride;
      for (int32_t i = 0, count = residuals->counts[r]; i < count; ++i) {
        const int8_t* w = residuals->panel + 64 * int64_t(e[i].quad);
        const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
        const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
        // One part is often 0 (always `below` when A's zero point is 0): skipped.
        if (e[i].above) {
          const __m256i x = _mm256_set1_epi32(int32_t(e[i].above));
          acc[r][0] = _mm256_add_epi32(acc[r][0], int8_gemm_quad(x, w0, ones));
          acc[r][1] = _mm256_add_epi32(acc[r][1], int8_gemm_quad(x, w1, ones));
        }
        if (e[i].below) {
          const __m256i x = _mm256_set1_epi32(int32_t(e[i].below));
          acc[r][0] = _mm256_sub_epi32(acc[r][0], int8_gemm_quad(x, w0, ones));
          acc[r][1] = _mm256_sub_epi32(acc[r][1], int8_gemm_quad(x, w1, ones));
        }
      }
    }
  }
  for (int64_t i = 0; residuals && i < residuals->fix_count; ++i) {
    const Int8WeightFix& f = residuals->fixes[i];
    const __m256i e0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(f.excess));
    const __m256i e1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(f.excess + 8));
#pragma GCC unroll 6
    for (int r = 0; r < ROWS; ++r) {
      const __m256i x = _mm256_set1_epi32(residuals->a[r * residuals->lda + f.k]);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_mullo_epi32(x, e0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_mullo_epi32(x, e1));
    }
  }
  int8_gemm_finish<ROWS>(acc, o);
}

using Int8GemmPairsBlock = void (*)(const int16_t*, int64_t, const int16_t*, int64_t,
                                    const Int8BlockOut&);
using Int8GemmBytesBlock = void (*)(const uint8_t*, int64_t, const int8_t*, int64_t, const int32_t*,
                                    const Int8BlockResiduals*, const Int8BlockOut&);

Int8GemmPairsBlock int8_gemm_pairs_block_for(int64_t rows) {
  switch (rows) {
    case 1: return &int8_gemm_block_pairs<1>;
    case 2: return &int8_gemm_block_pairs<2>;
    case 3: return &int8_gemm_block_pairs<3>;
    case 4: return &int8_gemm_block_pairs<4>;
    case 5: return &int8_gemm_block_pairs<5>;
    default: return &int8_gemm_block_pairs<6>;
  }
}

Int8GemmBytesBlock int8_gemm_bytes_block_for(int64_t rows) {
  switch (rows) {
    case 1: return &int8_gemm_block_bytes<1>;
    case 2: return &int8_gemm_block_bytes<2>;
    case 3: return &int8_gemm_block_bytes<3>;
    default: return &int8_gemm_block_bytes<4>;
  }
}

// A pass's slice of a byte panel ([quads][16 columns][4] int8) as int16 pairs ([2·quads][16][2]),
// for the int16 kernel.
STRATA_INT8_GEMM void int8_gemm_widen_quads(const int8_t* panel, int64_t quads, int16_t* dst) {
  // In each 128-bit lane (4 columns × 4 k): the columns' k 0-1, then their k 2-3.
  const __m256i pairs = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1,
                                         4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
  for (int64_t q = 0; q < quads; ++q)
    for (int h = 0; h < 2; ++h) {
      const __m256i v =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + 64 * q + 32 * h));
      // Columns 8h .. 8h + 7: k 0-1 in the low half, k 2-3 in the high half.
      const __m256i s = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, pairs), 0xD8);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + (2 * q * 16 + 8 * h) * 2),
                          _mm256_cvtepi8_epi16(_mm256_castsi256_si128(s)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + ((2 * q + 1) * 16 + 8 * h) * 2),
                          _mm256_cvtepi8_epi16(_mm256_extracti128_si256(s, 1)));
    }
}

// One row of A as uint8 (int8 + 128) for the byte kernel with whole bytes, zeros up to `width`
// (a multiple of 32).
STRATA_INT8_GEMM void int8_gemm_copy(const uint8_t* a, int64_t k, bool a_signed, uint8_t* dst,
                                     int64_t width) {
  const __m256i flip = _mm256_set1_epi8(char(a_signed ? 0x80 : 0));
  int64_t i = 0;
  for (; i + 32 <= k; i += 32)
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(dst + i),
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)), flip));
  for (; i < k; ++i) dst[i] = uint8_t(a[i] ^ (a_signed ? 0x80 : 0));
  for (; i < width; ++i) dst[i] = 0;
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

// One row of A for the byte kernel. u, A's byte as uint8 (int8 + 128), less `low` is split into
// min(max(u − low, 0), 128), stored in dst (zeros up to `width`, a multiple of 32), and the parts
// past 0..128 (1..127 below 0 or above 128), listed per quad of k where either is not zero.
// Returns the entries written (at most width / 4). a_end: the end of A (read up to, not past).
STRATA_INT8_GEMM int32_t int8_gemm_split(const uint8_t* a, int64_t k, bool a_signed, uint8_t low,
                                         uint8_t* dst, int64_t width, Int8Residual* residuals,
                                         const uint8_t* a_end) {
  const uint8_t flip_byte = a_signed ? 0x80 : 0;
  const __m256i flip = _mm256_set1_epi8(char(flip_byte));
  const __m256i bottom = _mm256_set1_epi8(char(low)), top = _mm256_set1_epi8(char(low + 128));
  const __m256i cap = _mm256_set1_epi8(char(128)), zero = _mm256_setzero_si256();
  // Past k: bytes that become `low`, which add nothing and leave no residual.
  const __m256i fill = _mm256_set1_epi8(char(low ^ flip_byte));
  const __m256i byte_index =
      _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                       22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  int32_t count = 0;
  alignas(32) uint32_t above[8], below[8];
  for (int64_t i = 0; i < width; i += 32) {
    __m256i u;
    if (i + 32 <= k) {
      u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    } else if (i >= k) {
      u = fill;
    } else if (a + i + 32 <= a_end) {
      // The next row's bytes (or the end of A's) are read and replaced by the fill.
      const __m256i inside = _mm256_cmpgt_epi8(_mm256_set1_epi8(char(k - i)), byte_index);
      u = _mm256_blendv_epi8(fill, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)),
                             inside);
    } else {
      alignas(32) uint8_t tail[32];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tail), fill);
      for (int64_t j = i; j < k; ++j) tail[j - i] = a[j];
      u = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail));
    }
    u = _mm256_xor_si256(u, flip);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_min_epu8(_mm256_subs_epu8(u, bottom), cap));
    const __m256i up = _mm256_subs_epu8(u, top), down = _mm256_subs_epu8(bottom, u);
    const __m256i empty = _mm256_cmpeq_epi32(_mm256_or_si256(up, down), zero);
    unsigned quads = ~unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(empty))) & 0xFFu;
    if (!quads) continue;
    _mm256_store_si256(reinterpret_cast<__m256i*>(above), up);
    _mm256_store_si256(reinterpret_cast<__m256i*>(below), down);
    for (; quads; quads &= quads - 1) {
      const int q = __builtin_ctz(quads);
      residuals[count++] = Int8Residual{int32_t(i / 4 + q), above[q], below[q]};
    }
  }
  return count;
}

#pragma GCC diagnostic pop

}  // namespace

Int8Gemm::Int8Gemm(const int8_t* b, int64_t k, int64_t n, const std::vector<int32_t>& b_zero)
    : k_(k), n_(n) {
  const int64_t panels = (n + kGemmColumns - 1) / kGemmColumns;
  const bool zero_points = std::any_of(b_zero.begin(), b_zero.end(), [](int32_t z) { return z; });
  if (zero_points) {
    steps_ = (k + 1) / 2;
    wide_.assign(size_t(panels * steps_ * kGemmColumns * 2), 0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j)
        wide_[size_t(((j / kGemmColumns * steps_ + i / 2) * kGemmColumns + j % kGemmColumns) * 2 +
                     i % 2)] =
            int16_t(int32_t(b[i * n + j]) - b_zero[b_zero.size() == 1 ? 0 : size_t(j)]);
    return;
  }
  steps_ = (k + 3) / 4;
  bytes_.assign(size_t(panels * steps_ * kGemmColumns * 4), 0);
  column_sums_.assign(size_t(panels * kGemmColumns), 0);
  // B's pairs (k 2i and 2i + 1 of a column) that could saturate with A's whole bytes: one sign
  // and |w0| + |w1| past 128. Where they are few (BERT's per-tensor weights: 0.04%), A's bytes
  // are taken whole and the larger weight of each such pair is cut to 128 − |the other|, its
  // excess fixed after (Int8WeightFix, one per panel and row k of B with a cut).
  std::vector<uint8_t> cut(size_t(panels * kGemmColumns));  // per column: 1 cut w0, 2 cut w1
  const auto pair_cuts = [&](int64_t i) {
    const int8_t* r0 = b + i * n;
    for (int64_t j = 0; j < n; ++j) {  // branch-free: vectorized
      const int w0 = r0[j], w1 = i + 1 < k ? r0[n + j] : 0;
      const int a0 = w0 < 0 ? -w0 : w0, a1 = w1 < 0 ? -w1 : w1;
      const bool saturates = ((w0 > 0 && w1 > 0) | (w0 < 0 && w1 < 0)) & (a0 + a1 > 128);
      cut[size_t(j)] = uint8_t(saturates ? (a0 >= a1 ? 1 : 2) : 0);
    }
  };
  // Counted first: clipped bytes need none of it.
  int64_t fixes = 0;
  for (int64_t i = 0; i < k; i += 2) {
    pair_cuts(i);
    for (int64_t p = 0; p < panels; ++p) {
      uint8_t any = 0;
      for (int64_t c = 0; c < kGemmColumns; ++c) any |= cut[size_t(p * kGemmColumns + c)];
      fixes += (any & 1) + (any >> 1);
    }
  }
  // Each fix costs about a quad of k of the byte kernel: whole bytes pay while they add at most
  // one in kGemmFixShare; else A's bytes are clipped (the weights kept whole).
  weight_fixes_ = fixes * kGemmFixShare <= panels * steps_;
  std::vector<int8_t> kept;
  if (weight_fixes_) {
    kept.assign(b, b + k * n);
    std::vector<std::vector<Int8WeightFix>> by_panel(static_cast<size_t>(panels));
    for (int64_t i = 0; i < k; i += 2) {
      pair_cuts(i);
      for (int64_t p = 0; p < panels; ++p) {
        uint8_t panel_cuts = 0;
        for (int64_t c = 0; c < kGemmColumns; ++c) panel_cuts |= cut[size_t(p * kGemmColumns + c)];
        for (const uint8_t which : {uint8_t(1), uint8_t(2)}) {
          if (!(panel_cuts & which)) continue;
          Int8WeightFix fix{int32_t(i + which - 1), {}};
          bool any = false;
          for (int64_t j = p * kGemmColumns; j < std::min(n, (p + 1) * kGemmColumns); ++j) {
            if (cut[size_t(j)] != which) continue;
            const int other = b[(which == 1 ? i + 1 : i) * n + j];
            const int keep = (128 - std::abs(other)) * (other > 0 ? 1 : -1);
            fix.excess[j % kGemmColumns] = int32_t(b[fix.k * n + j]) - keep;
            kept[size_t(fix.k * n + j)] = int8_t(keep);
            any = true;
          }
          if (any) by_panel[size_t(p)].push_back(fix);
        }
      }
    }
    fix_at_.assign(size_t(panels + 1), 0);
    fixes_.reserve(size_t(fixes));
    for (int64_t p = 0; p < panels; ++p) {
      fixes_.insert(fixes_.end(), by_panel[size_t(p)].begin(), by_panel[size_t(p)].end());
      fix_at_[size_t(p + 1)] = int64_t(fixes_.size());
    }
  }
  const int8_t* packed = weight_fixes_ ? kept.data() : b;
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bytes_[size_t(((j / kGemmColumns * steps_ + i / 4) * kGemmColumns + j % kGemmColumns) * 4 +
                    i % 4)] = packed[i * n + j];
      column_sums_[size_t(j)] += b[i * n + j];
    }
}

namespace {

// Bytes per row of A as the kernels read it (4 per step: a quad of clipped bytes or a pair of
// int16), in 32-byte rows.
int64_t int8_gemm_lda_bytes(int64_t steps) {
  return (4 * steps + 31) / 32 * 32;
}

// Steps per pass over the columns for `steps` steps of k, a multiple of `multiple`.
int64_t int8_gemm_per_pass(int64_t steps, int64_t multiple) {
  const int64_t passes = steps <= kGemmOnePass ? 1 : (steps + kGemmSteps - 1) / kGemmSteps;
  const int64_t per_pass = (steps + passes - 1) / passes;
  return std::max<int64_t>(multiple, (per_pass + multiple - 1) / multiple * multiple);
}

// Where multiply()'s scratch holds each part, for `rows` rows on up to `threads` threads. The
// byte kernel's: A's clipped bytes, the residuals (room for A as int16 pairs too, which replace
// them when they are dense), their counts, and each thread's panel slice widened to int16.
struct Int8GemmScratch {
  int64_t residuals_at = 0, counts_at = 0, slices_at = 0, slice = 0, bytes = 0;
};
Int8GemmScratch int8_gemm_scratch(int64_t rows, int64_t steps, bool byte_kernel, int threads) {
  Int8GemmScratch s;
  const int64_t lda = int8_gemm_lda_bytes(steps);
  if (!byte_kernel) {
    s.bytes = rows * lda;
    return s;
  }
  static_assert(sizeof(Int8Residual) >= 8, "A as int16 pairs takes 8 bytes a quad");
  s.residuals_at = scratch_aligned(rows * lda);
  s.counts_at = s.residuals_at + rows * lda / 4 * int64_t(sizeof(Int8Residual));
  s.slices_at = scratch_aligned(s.counts_at + rows * int64_t(sizeof(int32_t)));
  s.slice = int8_gemm_per_pass(2 * steps, 2) * kGemmColumns * 2;  // int16
  s.bytes = s.slices_at + std::max(1, threads) * s.slice * int64_t(sizeof(int16_t));
  return s;
}

}  // namespace

int64_t Int8Gemm::scratch_bytes(int64_t rows, int threads) const {
  return int8_gemm_scratch(rows, steps_, !bytes_.empty(), threads).bytes;
}

bool Int8Gemm::multiply(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                        const Int8GemmFloatOutput* float_output, void* scratch, int threads) const {
  return multiply_into(a, a_signed, a_zero, rows, out, float_output, nullptr, nullptr, scratch,
                       threads);
}

bool Int8Gemm::multiply_requantized(const void* a, bool a_signed, int32_t a_zero, int64_t rows,
                                    const Int8Requantization& requantization, void* y, void* sums,
                                    void* scratch, int threads) const {
  return multiply_into(a, a_signed, a_zero, rows, sums, nullptr, &requantization, y, scratch,
                       threads);
}

bool Int8Gemm::multiply_into(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                             const Int8GemmFloatOutput* float_output,
                             const Int8Requantization* requantization, void* y, void* scratch,
                             int threads) const {
  const bool byte_kernel = !bytes_.empty();
  const int64_t lda = int8_gemm_lda_bytes(steps_);
  const Int8GemmScratch layout = int8_gemm_scratch(rows, steps_, byte_kernel, threads);
  auto* base = static_cast<char*>(scratch);
  auto* clipped = reinterpret_cast<uint8_t*>(base);
  auto* residuals = reinterpret_cast<Int8Residual*>(base + layout.residuals_at);
  auto* counts = reinterpret_cast<int32_t*>(base + layout.counts_at);
  const int64_t stride = lda / 4;  // residual entries per row: one per quad at most
  // A as int16 pairs for the int16 kernel: B with zero points (steps_ pairs), or the byte kernel's
  // fallback (2·steps_ pairs, over the residuals).
  const int64_t pairs = byte_kernel ? 2 * steps_ : steps_;
  auto* wide = reinterpret_cast<int16_t*>(byte_kernel ? base + layout.residuals_at : base);
  const int64_t lda_wide = byte_kernel ? (4 * steps_ + 15) / 16 * 16 : lda / 2;  // int16
  // The byte kernel's split point: A's bytes as uint8 (zero point `zero`) are clipped to
  // low .. low + 128 around the zero point, where most of a quantized tensor's values lie, so
  // that few residuals are left.
  const int32_t zero = a_zero + (a_signed ? 128 : 0);
  const auto low = weight_fixes_ ? uint8_t(0) : uint8_t(std::clamp(zero - 64, 0, 127));
  // The byte kernel's A: whole bytes read in place (uint8, k a multiple of 4), else copied as
  // uint8; or clipped bytes.
  const bool in_place = weight_fixes_ && !a_signed && k_ % 4 == 0;
  const uint8_t* a_bytes = in_place ? static_cast<const uint8_t*>(a) : clipped;
  const int64_t lda_bytes = in_place ? k_ : lda;
  const int64_t panels = (n_ + kGemmColumns - 1) / kGemmColumns;
  const double macs = double(rows) * double(k_) * double(n_);
  const int team = macs >= kGemmShareMacs
                       ? int(std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, panels)))
                       : 1;
  const auto widen_rows = [&](int64_t first, int64_t last) {
    for (int64_t r = first; r < last; ++r) {
      if (a_signed)
        int8_gemm_widen(static_cast<const int8_t*>(a) + r * k_, k_, a_zero, wide + r * lda_wide,
                        2 * pairs);
      else
        int8_gemm_widen(static_cast<const uint8_t*>(a) + r * k_, k_, a_zero, wide + r * lda_wide,
                        2 * pairs);
    }
  };
  // Where panel p's block of sums goes at the end of a pass.
  const auto block_out = [&](int64_t p, bool first_pass, bool final_pass,
                             Int8RequantizeColumns* requantize_columns) {
    const int64_t column = p * kGemmColumns;
    Int8BlockOut o{};
    o.ld = n_;
    o.columns = std::min(kGemmColumns, n_ - column);
    o.accumulate = !first_pass;
    o.to_float = final_pass && float_output;
    if (o.to_float) {
      o.scale_per_column = float_output->scale_per_column;
      o.scale = float_output->scale + (o.scale_per_column ? column : 0);
      o.bias = float_output->bias ? float_output->bias + column : nullptr;
    }
    if (final_pass && requantization) {
      o.requantize = requantization;
      int8_requantize_panel(*requantization, column, o.columns, requantize_columns);
      o.requantize_columns = requantize_columns;
      o.ldy = n_;
    }
    return o;
  };
  bool dense = false;  // the byte kernel was planned, A's residuals were too many
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    const int64_t my_first = rows * t / count, my_last = rows * (t + 1) / count;
    // The byte kernel clips A's rows unless k is short (then splitting them costs more than the
    // byte kernel saves); dense residuals (A's values far from its zero point, such as random
    // inputs) would cost more than the int16 kernel. Either way the int16 kernel takes A,
    // widened, and B's slices per pass.
    bool clip = byte_kernel && (weight_fixes_ || k_ >= kGemmClipMinK);
    if (weight_fixes_) {
      if (!in_place)
        for (int64_t r = my_first; r < my_last; ++r)
          int8_gemm_copy(static_cast<const uint8_t*>(a) + r * k_, k_, a_signed, clipped + r * lda,
                         lda);
#pragma omp barrier
    } else if (clip) {
      for (int64_t r = my_first; r < my_last; ++r)
        counts[r] = int8_gemm_split(static_cast<const uint8_t*>(a) + r * k_, k_, a_signed, low,
                                    clipped + r * lda, lda, residuals + r * stride,
                                    static_cast<const uint8_t*>(a) + rows * k_);
#pragma omp barrier
      int64_t residual_quads = 0;
      for (int64_t r = 0; r < rows; ++r) residual_quads += counts[r];
      clip = residual_quads * kGemmDenseResiduals <= rows * steps_;
      if (t == 0) dense = !clip;
    }
    if (!clip) {
      widen_rows(my_first, my_last);
#pragma omp barrier
    }
    Int8RequantizeColumns requantize_columns[2];
    // block(j0, steps, final_pass, p, out) for every pass over `total` steps of k, `per_pass` at
    // a time, and every panel: each thread takes the next panel as it gets free (a thread on a
    // slower or busier CPU takes fewer), and a pass ends for all before the next starts (the
    // schedule's barrier), since a panel's passes may fall to different threads.
    const auto for_each_pass_and_panel = [&](int64_t total, int64_t per_pass, const auto& block) {
      for (int64_t j0 = 0; j0 < total; j0 += per_pass) {
        const int64_t steps = std::min(per_pass, total - j0);
        const bool final_pass = j0 + steps == total;
#pragma omp for schedule(dynamic, 1)
        for (int64_t p = 0; p < panels; ++p)
          block(j0, steps, final_pass, p, block_out(p, j0 == 0, final_pass, requantize_columns));
      }
    };
    if (clip) {
      alignas(32) int32_t start[kGemmColumns];
      for_each_pass_and_panel(
          steps_, int8_gemm_per_pass(steps_, 1),
          [&](int64_t j0, int64_t steps, bool final_pass, int64_t p, Int8BlockOut o) {
            const int64_t column = p * kGemmColumns;
            for (int64_t i = 0; i < kGemmColumns; ++i)
              start[i] = (int32_t(low) - zero) * column_sums_[size_t(column + i)];
            Int8BlockResiduals rest;
            rest.stride = stride;
            rest.panel = bytes_.data() + p * steps_ * kGemmColumns * 4;
            if (weight_fixes_) {
              rest.fixes = fixes_.data() + fix_at_[size_t(p)];
              rest.fix_count = fix_at_[size_t(p + 1)] - fix_at_[size_t(p)];
              rest.lda = lda_bytes;
            }
            for (int64_t r = 0; r < rows; r += kGemmByteRows) {
              o.out = static_cast<int32_t*>(out) + r * n_ + column;
              if (o.requantize) o.y = static_cast<uint8_t*>(y) + r * n_ + column;
              if (!weight_fixes_) {
                rest.entries = residuals + r * stride;
                rest.counts = counts + r;
              }
              rest.a = a_bytes + r * lda_bytes;
              int8_gemm_bytes_block_for(std::min<int64_t>(kGemmByteRows, rows - r))(
                  a_bytes + r * lda_bytes + 4 * j0, lda_bytes, rest.panel + 4 * j0 * kGemmColumns,
                  steps, j0 == 0 ? start : nullptr, final_pass ? &rest : nullptr, o);
            }
          });
    } else {
      int16_t* slice = reinterpret_cast<int16_t*>(base + layout.slices_at) + t * layout.slice;
      const int64_t per_pass = int8_gemm_per_pass(pairs, byte_kernel ? 2 : 1);
      for_each_pass_and_panel(
          pairs, per_pass, [&](int64_t j0, int64_t steps, bool, int64_t p, Int8BlockOut o) {
            const int64_t column = p * kGemmColumns;
            const int16_t* panel = slice;
            if (byte_kernel)
              int8_gemm_widen_quads(bytes_.data() + (p * steps_ + j0 / 2) * kGemmColumns * 4,
                                    steps / 2, slice);
            else
              panel = wide_.data() + (p * steps_ + j0) * kGemmColumns * 2;
            for (int64_t r = 0; r < rows; r += kGemmRows) {
              o.out = static_cast<int32_t*>(out) + r * n_ + column;
              if (o.requantize) o.y = static_cast<uint8_t*>(y) + r * n_ + column;
              int8_gemm_pairs_block_for(std::min<int64_t>(kGemmRows, rows - r))(
                  wide + r * lda_wide + 2 * j0, lda_wide, panel, steps, o);
            }
          });
    }
  }
  return dense;
}

std::string Int8Gemm::method() const {
  if (!wide_.empty()) return "16-bit pairs (vpmaddwd): the weights have zero points";
  if (weight_fixes_)
    return fmt::format("vpmaddubsw on A's whole bytes, {} weight fixes", fixes_.size());
  if (k_ < kGemmClipMinK) return fmt::format("16-bit pairs (vpmaddwd): k = {} is short", k_);
  return "vpmaddubsw on A's bytes clipped around its zero point (16-bit pairs on calls whose "
         "activations lie far from it: random inputs do)";
}

std::string Int8GemmCalls::note() const {
  const int64_t dense = dense_.load(std::memory_order_relaxed);
  if (dense == 0) return "";
  return fmt::format(
      "16-bit pairs on {} of {} calls: this input's activations lay far from their zero point "
      "(random inputs do), too many residuals for vpmaddubsw on clipped bytes",
      dense, calls_.load(std::memory_order_relaxed));
}

bool int8_gemm_available() {
  return simd_level() >= Simd::kAvx2;
}

}  // namespace strata::kernels::cpu
