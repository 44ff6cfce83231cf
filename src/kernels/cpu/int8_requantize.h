// The QLinear products' requantization of exact int32 sums to 8 bits (ops/requantize.h), shared by
// strata's exact int8 kernels (Int8Gemm::multiply_requantized, the depthwise convolution), per
// column j: saturate(round_half_even((sum + bias[j]) · multiplier[j]) + zero_point), with the
// reference kernel's float32 multiplier applied in double, so that the results are equal.
//
// Two ways, both exact (docs/quantization.md): in double (about 27 instructions per 8 values), or
// in float32 (about 13) where that gives the same result: the sum plus bias, clamped to ±limit[j]
// (past which the output saturates whatever the zero point), is a float32 exactly, and the
// float32 product rounds to the same integer as the exact one unless it lands exactly halfway
// between two, which the float32 path detects and hands to the double one.
#pragma once

#include <cstdint>
#include <vector>

namespace strata::kernels::cpu {

// A requantization's values, as pointers to n per column (Int8RequantizationValues owns them).
struct Int8Requantization {
  const double* multiplier = nullptr;  // the reference's float32 multiplier, exactly
  const double* bias = nullptr;        // the int32 bias, or nullptr
  int32_t zero_point = 0;
  bool y_signed = false;  // int8 output, else uint8
  // The float32 path's values, or nullptr where it does not apply (the double path only).
  const float* multiplier_f = nullptr;
  const int32_t* bias_i = nullptr;  // the bias (0 without one)
  // |sum + bias| past this saturates: 512 / multiplier, up; nullptr where no sum can pass 2^24 and
  // no product 2^21 (nothing to clamp).
  const int32_t* limit = nullptr;
};

class Int8RequantizationValues {
 public:
  Int8RequantizationValues() = default;
  // multipliers: the reference's float32 a_scale · b_scale[j] / y_scale per column (see
  // int8_multipliers); bias: int32 per column, or empty; max_abs_sum: a bound on the products'
  // |sum| (k · 255 · 255 for 8-bit operands less their zero points). The float32 path applies
  // when the sums plus bias cannot pass int32 and either every multiplier lies in [2^-15, 2^20]
  // (the sums clamped where they saturate) or no sum plus bias can pass 2^24 and no product 2^21.
  Int8RequantizationValues(std::vector<float> multipliers, const std::vector<int32_t>& bias,
                           int32_t zero_point, bool y_signed, double max_abs_sum);

  // Points into this object: valid while it lives unchanged.
  Int8Requantization get() const;
  bool float_path() const { return !multiplier_f_.empty(); }
  bool clamps() const { return !limit_.empty(); }

 private:
  std::vector<double> multiplier_, bias_;
  std::vector<float> multiplier_f_;
  std::vector<int32_t> bias_i_, limit_;
  int32_t zero_point_ = 0;
  bool y_signed_ = false;
};

// The reference's float32 multipliers a_scale · b_scale / y_scale for n columns (b_scale: one
// value, or one per column).
std::vector<float> int8_multipliers(float a_scale, const std::vector<double>& b_scale,
                                    float y_scale, int64_t n);

// y[r·n + j] (uint8 or int8) for `rows` rows of n int32 sums, 8 at a time on AVX2: the
// requantization Int8Gemm::multiply_requantized applies in its registers, for sums made elsewhere.
void int8_requantize(const int32_t* sums, int64_t rows, int64_t n, const Int8Requantization& q,
                     void* y);

}  // namespace strata::kernels::cpu
