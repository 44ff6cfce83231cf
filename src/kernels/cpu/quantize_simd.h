// The AVX-512 quantization steps strata's 8-bit element-wise kernels share (quantize.cpp,
// qlinear_add.cpp), 16 values at a time, in the reference kernels' float32 arithmetic.
#pragma once

#include <immintrin.h>

#include <limits>
#include <type_traits>

namespace strata::kernels::cpu {

inline bool has_avx512bw() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return yes;
}

// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialised
// values once they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define STRATA_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) inline

// 16 floats to 16 Q values: x / scale rounded half to even, plus the zero point, saturated.
template <class Q>
STRATA_AVX512BW __m128i quantize16(__m512 x, __m512 scale, __m512 zero_point) {
  const __m512 lo = _mm512_set1_ps(float(std::numeric_limits<Q>::lowest()));
  const __m512 hi = _mm512_set1_ps(float(std::numeric_limits<Q>::max()));
  const __m512 v =
      _mm512_roundscale_ps(_mm512_div_ps(x, scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512i q =
      _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, zero_point), lo), hi));
  if constexpr (std::is_signed_v<Q>)
    return _mm512_cvtsepi32_epi8(q);
  else
    return _mm512_cvtusepi32_epi8(q);
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

#pragma GCC diagnostic pop

}  // namespace strata::kernels::cpu
