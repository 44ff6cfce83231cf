#include "kernels/cpu/silu.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

namespace strata::kernels::cpu {

namespace {

// GCC 12 warns that the intrinsics' own _mm512_undefined_ps() "may be used uninitialized" (a
// false positive in its headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// exp(-x) = 2^k · exp(r): k = round(-x·log2 e), r = -x - k·ln 2 in [-0.35, 0.35] (ln 2 split in
// two for an exact reduction), exp(r) by its degree-6 Taylor polynomial (relative error about
// 1e-7); -x clamped to ±87 so that 2^k stays finite. Below x = -87 the result is 0 (the exact
// one is under 1e-35 in magnitude); NaN stays NaN.
__attribute__((target("avx512f"), always_inline)) inline __m512 silu16(__m512 x) {
  const __m512 minus_x =
      _mm512_min_ps(_mm512_max_ps(_mm512_sub_ps(_mm512_setzero_ps(), x), _mm512_set1_ps(-87.f)),
                    _mm512_set1_ps(87.f));
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(minus_x, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693145751953125f), minus_x);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(1.42860677e-6f), r);
  __m512 poly = _mm512_fmadd_ps(_mm512_set1_ps(1.f / 720), r, _mm512_set1_ps(1.f / 120));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f / 24));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f / 6));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(0.5f));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(1.f));
  const __mmask16 representable = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.f), _CMP_GE_OQ);
  const __mmask16 keep = representable | _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  return _mm512_maskz_div_ps(keep, x,
                             _mm512_add_ps(_mm512_set1_ps(1.f), _mm512_scalef_ps(poly, k)));
}

__attribute__((target("avx512f"))) void silu_avx512(float* p, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(p + i, silu16(_mm512_loadu_ps(p + i)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(p + i, tail, silu16(_mm512_maskz_loadu_ps(tail, p + i)));
  }
}

#pragma GCC diagnostic pop

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
  // Below this many values per thread (about 0.1 ms of work) waking another costs about what it
  // saves: efficientnet_b0 at 2 threads ran no faster splitting passes of 65,536 values or more
  // than running each on one thread, and slower with sleeping workers.
  constexpr int64_t kPerThread = 1 << 19;
  const int threads = int(std::min<int64_t>(omp_get_max_threads(), n / kPerThread));
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
