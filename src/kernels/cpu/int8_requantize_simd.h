// The requantization of int8_requantize.h on AVX2, 8 sums at a time, inlined into the loops of
// the exact int8 kernels (int8_gemm.cpp) and of int8_requantize (int8_requantize.cpp).
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/int8_requantize.h"

namespace strata::kernels::cpu {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// AVX2 without FMA: the float32 path's product and sum must round separately.
#define STRATA_INT8_REQUANTIZE_INLINE __attribute__((target("avx2"), always_inline)) inline

// Lanes below `left` (clamped to 0..8) set.
STRATA_INT8_REQUANTIZE_INLINE __m256i int8_gemm_lanes(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(std::clamp<int64_t>(left, 0, 8))),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 4-lane (64-bit) masks: lanes below `left` (clamped to 0..4) set.
STRATA_INT8_REQUANTIZE_INLINE __m256i int8_gemm_lanes64(int64_t left) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(std::clamp<int64_t>(left, 0, 4)),
                            _mm256_setr_epi64x(0, 1, 2, 3));
}

// Stores the first `count` (0..8) of 8 bytes.
STRATA_INT8_REQUANTIZE_INLINE void int8_gemm_store8(void* y, __m128i bytes, int64_t count) {
  if (count >= 8) {
    _mm_storel_epi64(static_cast<__m128i*>(y), bytes);
  } else if (count > 0) {
    alignas(16) uint8_t staged[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(staged), bytes);
    std::memcpy(y, staged, size_t(count));
  }
}

// The per-column values of the requantization for 8 columns, the first `left` of them real (no
// value is read past them; the others are 0).
struct Int8RequantizeColumns {
  __m256d multiplier[2], bias[2];  // the double path
  bool fast = false;               // the float32 path's values below are set
  bool clamp = false;              // the sums plus bias could pass ±limit: clamp them
  __m256 multiplier_f, magic;      // magic: 1.5 · 2^23 + the zero point
  __m256i bias_i, low, high;       // −limit and limit
};

STRATA_INT8_REQUANTIZE_INLINE Int8RequantizeColumns
int8_requantize_columns(const Int8Requantization& q, int64_t column, int64_t left) {
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
  c.fast = q.multiplier_f != nullptr;
  if (c.fast) {
    const bool full = left >= 8;
    const __m256i mask = int8_gemm_lanes(left);
    c.multiplier_f = full ? _mm256_loadu_ps(q.multiplier_f + column)
                          : _mm256_maskload_ps(q.multiplier_f + column, mask);
    c.bias_i = full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.bias_i + column))
                    : _mm256_maskload_epi32(q.bias_i + column, mask);
    c.clamp = q.limit != nullptr;
    if (c.clamp) {
      c.high = full ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q.limit + column))
                    : _mm256_maskload_epi32(q.limit + column, mask);
      c.low = _mm256_sub_epi32(_mm256_setzero_si256(), c.high);
    }
    c.magic = _mm256_set1_ps(float(3 << 22) + float(q.zero_point));
  }
  return c;
}

// 8 sums requantized in double, as the reference computes it, to int32 outputs not yet saturated
// (zero point added): an exact int32 → double conversion and bias add (+0 without a bias: exact
// too), the product, rounding half to even, the zero point. The rounding is the conversion's
// (MXCSR's round to nearest even, which nothing here changes); the products are first clamped to
// ±2^20, far past where any zero point saturates (and within int32); the zero point is added in
// int32 (exact).
STRATA_INT8_REQUANTIZE_INLINE __m256i int8_requantize8_double(__m256i sums,
                                                              const Int8RequantizeColumns& c,
                                                              int32_t zero_point) {
  const __m256d limit = _mm256_set1_pd(double(1 << 20)), neg_limit = _mm256_set1_pd(-(1 << 20));
  __m128i quarter[2];
  for (int h = 0; h < 2; ++h) {
    __m256d v = _mm256_cvtepi32_pd(h == 0 ? _mm256_castsi256_si128(sums)
                                          : _mm256_extracti128_si256(sums, 1));
    v = _mm256_mul_pd(_mm256_add_pd(v, c.bias[h]), c.multiplier[h]);
    quarter[h] = _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(v, neg_limit), limit));
  }
  return _mm256_add_epi32(_mm256_set_m128i(quarter[1], quarter[0]), _mm256_set1_epi32(zero_point));
}

// The same in float32 where that is exact (c.fast): x = sum + bias (within int32: the caller's
// bound), clamped to ±limit where it could pass it, is a float32 exactly (|x| ≤ 2^24) and
// saturates as before; p = x · m
// rounded to float32; adding 1.5 · 2^23 + the zero point rounds p + the zero point to an integer
// in the low bits of the float. Unless p lies exactly halfway between two integers, that is the
// exact product rounded, plus the zero point. Halfway, the exact product may lie a little to one
// side, and a tie is broken after the zero point is added: such lanes are set in `ties`, and the
// caller takes their values from the double path.
STRATA_INT8_REQUANTIZE_INLINE __m256i int8_requantize8_float(__m256i sums,
                                                             const Int8RequantizeColumns& c,
                                                             __m256& ties) {
  __m256i x = _mm256_add_epi32(sums, c.bias_i);
  if (c.clamp) x = _mm256_min_epi32(_mm256_max_epi32(x, c.low), c.high);
  const __m256 p = _mm256_mul_ps(_mm256_cvtepi32_ps(x), c.multiplier_f);
  const __m256 shifted = _mm256_add_ps(p, c.magic);
  const __m256 off = _mm256_sub_ps(p, _mm256_sub_ps(shifted, c.magic));  // p − round(p), exact
  ties = _mm256_or_ps(ties, _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), off),
                                          _mm256_set1_ps(0.5f), _CMP_EQ_OQ));
  // The float's bits less 1.5 · 2^23's: round(p) + the zero point (the float lies in [2^23, 2^24)).
  return _mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000));
}

// 8 int32 outputs saturated to Q, into the low 8 bytes.
template <class Q>
STRATA_INT8_REQUANTIZE_INLINE __m128i int8_requantize_pack8(__m256i shifted) {
  const __m128i words =
      _mm_packs_epi32(_mm256_castsi256_si128(shifted), _mm256_extracti128_si256(shifted, 1));
  if constexpr (std::is_signed_v<Q>)
    return _mm_packs_epi16(words, words);
  else
    return _mm_packus_epi16(words, words);
}

// 16 int32 outputs (8 in each) saturated to Q, in order.
template <class Q>
STRATA_INT8_REQUANTIZE_INLINE __m128i int8_requantize_pack16(__m256i first, __m256i second) {
  // Words per 128-bit lane: first's 4, second's 4; bytes likewise, each lane's 8 twice.
  const __m256i words = _mm256_packs_epi32(first, second);
  const __m256i bytes =
      std::is_signed_v<Q> ? _mm256_packs_epi16(words, words) : _mm256_packus_epi16(words, words);
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5)));
}

// 8 sums of c's columns requantized into the low 8 bytes, equal to the reference's.
template <class Q>
STRATA_INT8_REQUANTIZE_INLINE __m128i int8_requantize8(__m256i sums, const Int8RequantizeColumns& c,
                                                       int32_t zero_point) {
  if (c.fast) {
    __m256 ties = _mm256_setzero_ps();
    const __m256i shifted = int8_requantize8_float(sums, c, ties);
    if (_mm256_testz_ps(ties, ties)) return int8_requantize_pack8<Q>(shifted);
  }
  return int8_requantize_pack8<Q>(int8_requantize8_double(sums, c, zero_point));
}

// 16 sums, 8 of c[0]'s columns then 8 of c[1]'s, requantized into 16 bytes, equal to the
// reference's; one check for halfway products covers the 16.
template <class Q>
STRATA_INT8_REQUANTIZE_INLINE __m128i int8_requantize16(__m256i first, __m256i second,
                                                        const Int8RequantizeColumns* c,
                                                        int32_t zero_point) {
  if (c[0].fast) {
    __m256 ties = _mm256_setzero_ps();
    const __m256i y0 = int8_requantize8_float(first, c[0], ties);
    const __m256i y1 = int8_requantize8_float(second, c[1], ties);
    if (_mm256_testz_ps(ties, ties)) return int8_requantize_pack16<Q>(y0, y1);
  }
  return int8_requantize_pack16<Q>(int8_requantize8_double(first, c[0], zero_point),
                                   int8_requantize8_double(second, c[1], zero_point));
}

#pragma GCC diagnostic pop

}  // namespace strata::kernels::cpu
