// Vectorised exponentials for the element-wise work of strata's own kernels (SiLU after a
// convolution, the gates of the recurrent cells), 16 lanes with AVX-512 and 8 with AVX2 and FMA,
// the same arithmetic in both. Each function is compiled for its instruction set whatever the
// build's target; callers check simd_level() (kernels/cpu/simd.h) before calling.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/simd.h"

namespace strata::kernels::cpu {

// GCC 12 warns that the intrinsics' own _mm512_undefined_ps() "may be used uninitialized" (a
// false positive in its headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// exp(y) for y clamped to ±87 (so that 2^k stays finite): 2^k · exp(r), k = round(y·log2 e),
// r = y - k·ln 2 in [-0.35, 0.35] (ln 2 split in two for an exact reduction), exp(r) by its
// degree-6 Taylor polynomial (relative error about 1e-7). A NaN comes out as a number: callers
// that must keep NaN put it back.
__attribute__((target("avx512f"), always_inline)) inline __m512 exp16_clamped(__m512 y) {
  y = _mm512_min_ps(_mm512_max_ps(y, _mm512_set1_ps(-87.f)), _mm512_set1_ps(87.f));
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(y, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), y);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.42860677e-6f), r);
  __m512 poly = _mm512_fmadd_ps(_mm512_set1_ps(1.f / 720), r, _mm512_set1_ps(1.f / 120));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f / 24));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f / 6));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(0.5f));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f));
  return _mm512_scalef_ps(poly, k);
}

// 1 / (1 + exp(-x)), within about 1e-7 relatively; NaN stays NaN.
__attribute__((target("avx512f"), always_inline)) inline __m512 sigmoid16(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.f);
  const __m512 s =
      _mm512_div_ps(one, _mm512_add_ps(one, exp16_clamped(_mm512_sub_ps(_mm512_setzero_ps(), x))));
  return _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

// tanh x = 2·sigmoid(2x) - 1: within about 2e-7 absolutely; NaN stays NaN.
__attribute__((target("avx512f"), always_inline)) inline __m512 tanh16(__m512 x) {
  const __m512 s = sigmoid16(_mm512_add_ps(x, x));
  return _mm512_fmsub_ps(s, _mm512_set1_ps(2.f), _mm512_set1_ps(1.f));
}

// In place over n floats: sigmoid, tanh (AVX-512, the accuracy of sigmoid16 and tanh16).
__attribute__((target("avx512f"))) inline void sigmoid_in_place_avx512(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, sigmoid16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, sigmoid16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

__attribute__((target("avx512f"))) inline void tanh_in_place_avx512(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, tanh16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, tanh16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

#define STRATA_AVX2_FMA __attribute__((target("avx2,fma"), always_inline)) inline

// exp16_clamped's arithmetic on 8 lanes; 2^k built in the exponent bits (k is within ±126).
STRATA_AVX2_FMA __m256 exp8_clamped(__m256 y) {
  y = _mm256_min_ps(_mm256_max_ps(y, _mm256_set1_ps(-87.f)), _mm256_set1_ps(87.f));
  const __m256 k = _mm256_round_ps(_mm256_mul_ps(y, _mm256_set1_ps(1.44269504f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693145751953125f), y);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(1.42860677e-6f), r);
  __m256 poly = _mm256_fmadd_ps(_mm256_set1_ps(1.f / 720), r, _mm256_set1_ps(1.f / 120));
  poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(1.f / 24));
  poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(1.f / 6));
  poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(0.5f));
  poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(1.f));
  poly = _mm256_fmadd_ps(poly, r, _mm256_set1_ps(1.f));
  const __m256i two_k =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(poly, _mm256_castsi256_ps(two_k));
}

STRATA_AVX2_FMA __m256 sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.f);
  const __m256 s =
      _mm256_div_ps(one, _mm256_add_ps(one, exp8_clamped(_mm256_sub_ps(_mm256_setzero_ps(), x))));
  return _mm256_blendv_ps(s, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

STRATA_AVX2_FMA __m256 tanh8(__m256 x) {
  const __m256 s = sigmoid8(_mm256_add_ps(x, x));
  return _mm256_fmsub_ps(s, _mm256_set1_ps(2.f), _mm256_set1_ps(1.f));
}

// The first `left` (0 to 8) of 8 lanes: the valid part of a last, partial vector.
STRATA_AVX2_FMA __m256i tail_mask8(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(left)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <__m256 (*F)(__m256)>
__attribute__((target("avx2,fma"))) inline void apply_in_place_avx2(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(p + i, F(_mm256_loadu_ps(p + i)));
  if (i < n) {
    const __m256i tail = tail_mask8(n - i);
    _mm256_maskstore_ps(p + i, tail, F(_mm256_maskload_ps(p + i, tail)));
  }
}

#pragma GCC diagnostic pop

// In place over n floats, with AVX-512 or else AVX2 (the caller checked that the CPU has one).
inline void sigmoid_in_place(Simd simd, float* p, int64_t n) {
  if (simd == Simd::kAvx512)
    sigmoid_in_place_avx512(p, n);
  else
    apply_in_place_avx2<sigmoid8>(p, n);
}

inline void tanh_in_place(Simd simd, float* p, int64_t n) {
  if (simd == Simd::kAvx512)
    tanh_in_place_avx512(p, n);
  else
    apply_in_place_avx2<tanh8>(p, n);
}

}  // namespace strata::kernels::cpu
