#include "kernels/cpu/silu.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/vector_math.h"
#include "kernels/omp_threads.h"

namespace strata::kernels::cpu {

namespace {

// x / (1 + exp(-x)); below x = -87 the result is 0 (the exact one is under 1e-35 in magnitude);
// NaN stays NaN.
__attribute__((target("avx512f"), always_inline)) inline __m512 silu16(__m512 x) {
  const __mmask16 representable = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.f), _CMP_GE_OQ);
  const __mmask16 keep = representable | _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  const __m512 e = exp16_clamped(_mm512_sub_ps(_mm512_setzero_ps(), x));
  return _mm512_maskz_div_ps(keep, x, _mm512_add_ps(_mm512_set1_ps(1.f), e));
}

__attribute__((target("avx512f"))) void silu_avx512(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, silu16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, silu16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

void silu_scalar(float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] / (1 + std::exp(-p[i]));
}

void silu_range(float* p, int64_t n) {
  if (silu_is_vectorised())
    silu_avx512(p, n);
  else
    silu_scalar(p, n);
}

}  // namespace

bool silu_is_vectorised() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
}

void silu_in_place(float* data, int64_t n) {
  const int threads = pass_threads(n, omp_get_max_threads());
  if (threads <= 1) {
    silu_range(data, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), count = omp_get_num_threads();
    const int64_t begin = n * t / count / 16 * 16;
    const int64_t end = t + 1 == count ? n : n * (t + 1) / count / 16 * 16;
    silu_range(data + begin, end - begin);
  }
}

}  // namespace strata::kernels::cpu
