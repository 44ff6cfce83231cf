#include "core/narrow_types.h"

#include <cmath>

namespace strata {

namespace {

// The parameters of a small float format (8 bits, or float4e2m1's 4).
struct Float8Format {
  int mantissa_bits;
  int bias;
  bool ieee;  // E5M2: the top exponent holds infinities and NaNs
  bool uz;    // FNUZ: no -0; 0x80 is the only NaN
  double max;
  int total_bits = 8;
  bool has_nan = true;  // float4e2m1 has neither NaN nor infinities
};

Float8Format float8_format(DType t) {
  if (t == kF8E4M3FN) return {3, 7, false, false, 448.0};
  if (t == kF8E4M3FNUZ) return {3, 8, false, true, 240.0};
  if (t == kF8E5M2) return {2, 15, true, false, 57344.0};
  if (t == kF4E2M1) return {1, 1, false, false, 6.0, 4, false};
  return {2, 16, false, true, 57344.0};  // kF8E5M2FNUZ
}

}  // namespace

uint8_t e8m0_from_double(double value, E8M0Rounding rounding, bool saturate) {
  if (std::isnan(value)) return 0xff;
  const double a = std::fabs(value);
  if (std::isinf(a)) return saturate ? 0xfe : 0xff;
  if (a == 0) return 0x00;
  // a = m * 2^e with m in [1, 2): the biased exponent, then the rounding of m.
  int e = std::ilogb(a);
  const double m = std::ldexp(a, -e);
  if (rounding == E8M0Rounding::kUp && m > 1) ++e;
  if (rounding == E8M0Rounding::kNearest && (m > 1.5 || (m == 1.5 && (e + 127) % 2 != 0))) ++e;
  if (e < -127) return 0x00;  // below 2^-127: the smallest value
  if (e > 127) return saturate ? 0xfe : 0xff;
  return uint8_t(e + 127);
}

uint8_t float8_from_double(double value, DType format, bool saturate) {
  if (format == kF8E8M0) return e8m0_from_double(value, E8M0Rounding::kUp, saturate);
  const Float8Format f = float8_format(format);
  const uint8_t sign_bit = uint8_t(1u << (f.total_bits - 1));
  // float4e2m1 has no NaN: ONNX's reference (ml_dtypes) gives the -0 pattern.
  if (!f.has_nan && std::isnan(value)) return sign_bit;
  const uint8_t nan = f.uz ? 0x80 : 0x7f;
  const uint8_t sign = std::signbit(value) && !std::isnan(value) ? sign_bit : 0;
  if (std::isnan(value)) return f.uz ? nan : uint8_t(nan | (std::signbit(value) ? 0x80 : 0));
  const double a = std::fabs(value);
  // The spacing of representable values at a's magnitude (subnormals share the smallest one),
  // then rounding to a multiple of it, ties to even. Exact in double: a power-of-two scaling.
  int exponent = std::isinf(a) || a == 0 ? 0 : std::ilogb(a);
  if (exponent < 1 - f.bias) exponent = 1 - f.bias;
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double rounded = std::isinf(a) ? a : std::nearbyint(a / quantum) * quantum;
  if (rounded > f.max) {
    if (saturate || !f.has_nan) return uint8_t(sign | float8_from_double(f.max, format, true));
    if (f.ieee) return uint8_t(sign | 0x7c);
    return f.uz ? nan : uint8_t(sign | nan);
  }
  if (rounded == 0) return f.uz ? 0 : sign;
  const int e = std::ilogb(rounded);
  const int mantissa_scale = 1 << f.mantissa_bits;
  if (e < 1 - f.bias)  // subnormal: the count of smallest steps
    return uint8_t(sign | int(rounded / quantum));
  const int mantissa = int(std::ldexp(rounded, f.mantissa_bits - e)) - mantissa_scale;
  return uint8_t(sign | ((e + f.bias) << f.mantissa_bits) | mantissa);
}

float float8_to_float(uint8_t bits, DType format) {
  if (format == kF8E8M0)
    return bits == 0xff ? std::nanf("") : float(std::ldexp(1.0, int(bits) - 127));
  const Float8Format f = float8_format(format);
  const int exponent_mask = (1 << (f.total_bits - 1 - f.mantissa_bits)) - 1;
  const int exponent = (bits >> f.mantissa_bits) & exponent_mask;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const bool negative = bits & (1u << (f.total_bits - 1));
  if (f.has_nan) {
    if (f.uz && bits == 0x80) return std::nanf("");
    if (!f.uz && !f.ieee && (bits & 0x7f) == 0x7f) return negative ? -std::nanf("") : std::nanf("");
    if (f.ieee && exponent == exponent_mask) {
      if (mantissa) return negative ? -std::nanf("") : std::nanf("");
      return negative ? -INFINITY : INFINITY;
    }
  }
  const double magnitude = exponent == 0
                               ? std::ldexp(double(mantissa), 1 - f.bias - f.mantissa_bits)
                               : std::ldexp(double(mantissa + (1 << f.mantissa_bits)),
                                            exponent - f.bias - f.mantissa_bits);
  return float(negative ? -magnitude : magnitude);
}

bool is_float8(DType t) {
  return t == kF8E4M3FN || t == kF8E4M3FNUZ || t == kF8E5M2 || t == kF8E5M2FNUZ || t == kF8E8M0;
}

bool is_packed_int(DType t) {
  return packed_int_bits(t) != 0;
}

int packed_bits(DType t) {
  return t == kF4E2M1 ? 4 : packed_int_bits(t);
}

int packed_int_bits(DType t) {
  if (t == kI4 || t == kU4) return 4;
  if (t == kI2 || t == kU2) return 2;
  return 0;
}

}  // namespace strata
