#include "kernels/cpu/int8_requantize.h"

#include <cmath>
#include <limits>

#include "kernels/cpu/int8_requantize_simd.h"

namespace strata::kernels::cpu {

namespace {

// |product| at or past this saturates the output whatever its zero point (in −128..255): the
// float32 path clamps its sums there, which must leave them float32 exactly (≤ 2^24).
constexpr double kInt8SaturatingProduct = 512;
constexpr double kInt8FloatExactSum = double(1 << 24);
// Past this multiplier a clamped product plus the zero point could leave [−2^22, 2^22], where
// the float32 path rounds to integers.
constexpr double kInt8FloatMaxMultiplier = double(1 << 20);
// Unclamped sums (all float32 exactly) must keep their products within this.
constexpr double kInt8FloatMaxProduct = double(1 << 21);

// rows × n sums requantized, 16 columns at a time, then 8 (the last 1..7 masked): each group's
// per-column values loaded once for every row.
template <class Q>
__attribute__((target("avx2"))) void int8_requantize_rows(const int32_t* sums, int64_t rows,
                                                          int64_t n, const Int8Requantization& q,
                                                          Q* y) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const Int8RequantizeColumns c[2] = {int8_requantize_columns(q, j, 8),
                                        int8_requantize_columns(q, j + 8, 8)};
    for (int64_t r = 0; r < rows; ++r) {
      const auto* at = reinterpret_cast<const __m256i*>(sums + r * n + j);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + r * n + j),
                       int8_requantize16<Q>(_mm256_loadu_si256(at), _mm256_loadu_si256(at + 1), c,
                                            q.zero_point));
    }
  }
  for (; j < n; j += 8) {
    const int64_t left = std::min<int64_t>(8, n - j);
    const Int8RequantizeColumns c = int8_requantize_columns(q, j, left);
    const __m256i mask = int8_gemm_lanes(left);
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t* at = sums + r * n + j;
      const __m256i v = left == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at))
                                  : _mm256_maskload_epi32(at, mask);
      int8_gemm_store8(y + r * n + j, int8_requantize8<Q>(v, c, q.zero_point), left);
    }
  }
}

}  // namespace

Int8RequantizationValues::Int8RequantizationValues(std::vector<float> multipliers,
                                                   const std::vector<int32_t>& bias,
                                                   int32_t zero_point, bool y_signed,
                                                   double max_abs_sum)
    : zero_point_(zero_point), y_signed_(y_signed) {
  multiplier_.assign(multipliers.begin(), multipliers.end());
  bias_.assign(bias.begin(), bias.end());
  double max_abs_bias = 0;
  for (int32_t b : bias) max_abs_bias = std::max(max_abs_bias, std::abs(double(b)));
  // The float32 path's sum plus bias must not wrap in int32.
  const double bound = max_abs_sum + max_abs_bias;
  if (bound > double(std::numeric_limits<int32_t>::max())) return;
  // Either every sum is a float32 exactly and no product gets far (no clamp), or each column's
  // sums are clamped where its output saturates.
  bool unclamped = bound <= kInt8FloatExactSum, clamped = true;
  std::vector<int32_t> limit;
  for (float m : multipliers) {
    const double saturating = std::ceil(kInt8SaturatingProduct / double(m));
    unclamped = unclamped && bound * double(m) <= kInt8FloatMaxProduct;
    clamped = clamped && m <= kInt8FloatMaxMultiplier && saturating <= kInt8FloatExactSum;
    if (clamped) limit.push_back(int32_t(saturating));
  }
  if (!unclamped && !clamped) return;
  multiplier_f_ = std::move(multipliers);
  bias_i_ = bias.empty() ? std::vector<int32_t>(multiplier_f_.size(), 0) : bias;
  if (!unclamped) limit_ = std::move(limit);
}

Int8Requantization Int8RequantizationValues::get() const {
  Int8Requantization q;
  q.multiplier = multiplier_.data();
  q.bias = bias_.empty() ? nullptr : bias_.data();
  q.zero_point = zero_point_;
  q.y_signed = y_signed_;
  if (float_path()) {
    q.multiplier_f = multiplier_f_.data();
    q.bias_i = bias_i_.data();
    q.limit = clamps() ? limit_.data() : nullptr;
  }
  return q;
}

std::vector<float> int8_multipliers(float a_scale, const std::vector<double>& b_scale,
                                    float y_scale, int64_t n) {
  std::vector<float> multipliers;
  for (int64_t j = 0; j < n; ++j)
    multipliers.push_back(a_scale * float(b_scale[b_scale.size() == 1 ? 0 : size_t(j)]) / y_scale);
  return multipliers;
}

void int8_requantize(const int32_t* sums, int64_t rows, int64_t n, const Int8Requantization& q,
                     void* y) {
  if (q.y_signed)
    int8_requantize_rows(sums, rows, n, q, static_cast<int8_t*>(y));
  else
    int8_requantize_rows(sums, rows, n, q, static_cast<uint8_t*>(y));
}

}  // namespace strata::kernels::cpu
