// AVX-512 exponentials for the element-wise work of strata's own kernels (SiLU after a
// convolution, the gates of the recurrent cells). Each function is compiled for AVX-512 whatever
// the build's target; callers check __builtin_cpu_supports("avx512f") before calling.
#pragma once

#include <immintrin.h>

#include <cstdint>

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
__attribute__((target("avx512f"))) inline void sigmoid_in_place(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, sigmoid16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, sigmoid16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

__attribute__((target("avx512f"))) inline void tanh_in_place(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, tanh16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, tanh16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

#pragma GCC diagnostic pop

}  // namespace strata::kernels::cpu
