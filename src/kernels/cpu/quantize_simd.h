// The quantization steps strata's 8-bit element-wise kernels share (quantize.cpp,
// qlinear_add.cpp), in the reference kernels' float32 arithmetic: 16 values at a time with
// AVX-512, 8 with AVX2. The AVX2 steps are compiled without FMA, so that no product and sum are
// contracted into one rounding where the reference kernel rounds twice.
#pragma once

#include <immintrin.h>

#include <limits>
#include <type_traits>

#include "kernels/cpu/simd.h"

namespace strata::kernels::cpu {

// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialised
// values once they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define STRATA_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline

// 16 floats already divided by the scale to 16 Q values: rounded half to even, plus the zero
// point, saturated.
template <class Q>
STRATA_AVX512BW __m128i quantize16_scaled(__m512 scaled, __m512 zero_point) {
  const __m512 lo = _mm512_set1_ps(float(std::numeric_limits<Q>::lowest()));
  const __m512 hi = _mm512_set1_ps(float(std::numeric_limits<Q>::max()));
  const __m512 v = _mm512_roundscale_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512i q =
      _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, zero_point), lo), hi));
  if constexpr (std::is_signed_v<Q>)
    return _mm512_cvtsepi32_epi8(q);
  else
    return _mm512_cvtusepi32_epi8(q);
}

// 16 floats to 16 Q values: x / scale rounded half to even, plus the zero point, saturated.
template <class Q>
STRATA_AVX512BW __m128i quantize16(__m512 x, __m512 scale, __m512 zero_point) {
  return quantize16_scaled<Q>(_mm512_div_ps(x, scale), zero_point);
}

// 16 Q values to 16 floats: (q - zero point) · scale.
template <class Q>
STRATA_AVX512BW __m512 dequantize16(__m128i q, __m512 scale, __m512 zero_point) {
  __m512i wide;
  if constexpr (std::is_signed_v<Q>)
    wide = _mm512_cvtepi8_epi32(q);
  else
    wide = _mm512_cvtepu8_epi32(q);
  return _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(wide), zero_point), scale);
}

#define STRATA_AVX2 __attribute__((target("avx2"), always_inline)) inline

// 8 floats already divided by the scale (`scaled`) to 8 Q values in the low 8 bytes:
// quantize16_scaled's arithmetic.
template <class Q>
STRATA_AVX2 __m128i quantize8_scaled(__m256 scaled, __m256 zero_point) {
  const __m256 lo = _mm256_set1_ps(float(std::numeric_limits<Q>::lowest()));
  const __m256 hi = _mm256_set1_ps(float(std::numeric_limits<Q>::max()));
  const __m256 v = _mm256_round_ps(scaled, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256i q =
      _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, zero_point), lo), hi));
  // In range already: the saturating packs only narrow.
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  if constexpr (std::is_signed_v<Q>)
    return _mm_packs_epi16(words, words);
  else
    return _mm_packus_epi16(words, words);
}

// 8 floats to 8 Q values: quantize16's arithmetic.
template <class Q>
STRATA_AVX2 __m128i quantize8(__m256 x, __m256 scale, __m256 zero_point) {
  return quantize8_scaled<Q>(_mm256_div_ps(x, scale), zero_point);
}

// The low 8 Q values of q to 8 floats: (q - zero point) · scale.
template <class Q>
STRATA_AVX2 __m256 dequantize8(__m128i q, __m256 scale, __m256 zero_point) {
  __m256i wide;
  if constexpr (std::is_signed_v<Q>)
    wide = _mm256_cvtepi8_epi32(q);
  else
    wide = _mm256_cvtepu8_epi32(q);
  return _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(wide), zero_point), scale);
}

template <class Q>
STRATA_AVX2 __m128i load8(const Q* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}

template <class Q>
STRATA_AVX2 void store8(Q* p, __m128i q) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), q);
}

#pragma GCC diagnostic pop

}  // namespace strata::kernels::cpu
