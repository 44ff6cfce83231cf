// Loops over contiguous float rows for the normalisations, GridSample and attention kernels: sums,
// scalings and softmax pieces, each in an AVX-512 version (when the CPU has it) and a portable one
// that gives the same results up to rounding. Callers pass `wide` = has_avx512().
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/cpu/simd.h"
#include "kernels/cpu/vector_math.h"

namespace strata::kernels::cpu {

inline bool has_avx512() {
  return simd_level() == Simd::kAvx512;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace row_detail {

__attribute__((target("avx512f"), always_inline)) inline __mmask16 tail_mask(int64_t left) {
  return __mmask16((1u << left) - 1);
}

// The sum of the 16 lanes (not _mm512_reduce_add_ps: GCC 12 warns that its own helpers read an
// uninitialised value, wherever it is inlined).
__attribute__((target("avx512f"), always_inline)) inline float lane_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

// Sum of x and of x² over n values, 16 lanes each, added up in double at the end.
__attribute__((target("avx512f"))) inline void sums_avx512(const float* x, int64_t n, double* sum,
                                                           double* squares) {
  __m512 s = _mm512_setzero_ps(), q = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    s = _mm512_add_ps(s, v);
    q = _mm512_fmadd_ps(v, v, q);
  }
  if (i < n) {
    const __m512 v = _mm512_maskz_loadu_ps(tail_mask(n - i), x + i);
    s = _mm512_add_ps(s, v);
    q = _mm512_fmadd_ps(v, v, q);
  }
  *sum = double(lane_sum(s));
  *squares = double(lane_sum(q));
}

__attribute__((target("avx512f"))) inline float squared_deviations_avx512(const float* x, int64_t n,
                                                                          float mean) {
  const __m512 m = _mm512_set1_ps(mean);
  __m512 q = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
    q = _mm512_fmadd_ps(d, d, q);
  }
  if (i < n) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 d = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + i), m);
    q = _mm512_fmadd_ps(d, d, q);
  }
  return lane_sum(q);
}

__attribute__((target("avx512f"))) inline void affine_avx512(const float* x, float a, float b,
                                                             float* y, int64_t n) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(_mm512_loadu_ps(x + i), va, vb));
  if (i < n) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, x + i), va, vb));
  }
}

__attribute__((target("avx512f"))) inline void scale_times_avx512(const float* x, float s,
                                                                  const float* w, float* y,
                                                                  int64_t n) {
  const __m512 vs = _mm512_set1_ps(s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(
        y + i, _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), vs), _mm512_loadu_ps(w + i)));
  if (i < n) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k,
                          _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), vs),
                                        _mm512_maskz_loadu_ps(k, w + i)));
  }
}

__attribute__((target("avx512f"))) inline void axpy_avx512(float a, const float* x, float* y,
                                                           int64_t n) {
  const __m512 va = _mm512_set1_ps(a);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_fmadd_ps(va, _mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
  if (i < n) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(
        y + i, k,
        _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(k, x + i), _mm512_maskz_loadu_ps(k, y + i)));
  }
}

// p[i] = exp(p[i] - top) for every i; returns their sum. -inf becomes 0.
__attribute__((target("avx512f"))) inline float exp_shifted_avx512(float* p, int64_t n, float top) {
  const __m512 t = _mm512_set1_ps(top), floor = _mm512_set1_ps(-87.f);
  __m512 s = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i < n; i += 16) {
    const __mmask16 k = i + 16 <= n ? __mmask16(0xffff) : tail_mask(n - i);
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, p + i), t);
    // Below -87 the exponential is under 1e-38 of the largest: 0, as for a masked key.
    const __mmask16 live = k & _mm512_cmp_ps_mask(d, floor, _CMP_GE_OQ);
    const __m512 e = _mm512_maskz_mov_ps(live, exp16_clamped(d));
    _mm512_mask_storeu_ps(p + i, k, e);
    s = _mm512_add_ps(s, e);
  }
  return lane_sum(s);
}

// exp_shifted_avx512 on 8 lanes.
__attribute__((target("avx2,fma"))) inline float exp_shifted_avx2(float* p, int64_t n, float top) {
  const __m256 t = _mm256_set1_ps(top), floor = _mm256_set1_ps(-87.f);
  __m256 s = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i < n; i += 8) {
    const __m256i k = tail_mask8(std::min<int64_t>(n - i, 8));
    const __m256 d = _mm256_sub_ps(_mm256_maskload_ps(p + i, k), t);
    const __m256 live = _mm256_and_ps(_mm256_castsi256_ps(k), _mm256_cmp_ps(d, floor, _CMP_GE_OQ));
    const __m256 e = _mm256_and_ps(live, exp8_clamped(d));
    _mm256_maskstore_ps(p + i, k, e);
    s = _mm256_add_ps(s, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float sum = 0;
  for (float lane : lanes) sum += lane;
  return sum;
}

}  // namespace row_detail

#pragma GCC diagnostic pop

// Σx and Σx² over n floats (each lane in float, the total in double).
inline void row_sums(bool wide, const float* x, int64_t n, double* sum, double* squares) {
  if (wide) return row_detail::sums_avx512(x, n, sum, squares);
  float s = 0, q = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += x[i];
    q += x[i] * x[i];
  }
  *sum = s;
  *squares = q;
}

// Σ(x - mean)² over n floats.
inline float squared_deviations(bool wide, const float* x, int64_t n, float mean) {
  if (wide) return row_detail::squared_deviations_avx512(x, n, mean);
  float q = 0;
  for (int64_t i = 0; i < n; ++i) q += (x[i] - mean) * (x[i] - mean);
  return q;
}

// y = x·a + b (y may be x).
inline void affine(bool wide, const float* x, float a, float b, float* y, int64_t n) {
  if (wide) return row_detail::affine_avx512(x, a, b, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
}

// y = x·s·w elementwise (y may be x).
inline void scale_times(bool wide, const float* x, float s, const float* w, float* y, int64_t n) {
  if (wide) return row_detail::scale_times_avx512(x, s, w, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s * w[i];
}

// y += a·x.
inline void axpy(bool wide, float a, const float* x, float* y, int64_t n) {
  if (wide) return row_detail::axpy_avx512(a, x, y, n);
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

// p[i] = exp(p[i] - top), returning Σp (a softmax's numerators and denominator).
inline float exp_shifted(Simd simd, float* p, int64_t n, float top) {
  if (simd == Simd::kAvx512) return row_detail::exp_shifted_avx512(p, n, top);
  if (simd == Simd::kAvx2) return row_detail::exp_shifted_avx2(p, n, top);
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += (p[i] = std::exp(p[i] - top));
  return s;
}

}  // namespace strata::kernels::cpu
