// The narrow storage types: the four 8-bit float formats and 4- and 2-bit integers. They are DType
// values (ONNX TensorProto numbers 17-23, 25, 26; 23 is float4e2m1) named here rather than in
// dtype.h because only conversions, quantization, data movement and file reading handle them;
// arithmetic kernels never visit them.
#pragma once

#include <type_traits>

#include "core/dtype.h"

namespace strata {

inline constexpr DType kF8E4M3FN = DType(17);    // no infinities; NaN 0x7f/0xff
inline constexpr DType kF8E4M3FNUZ = DType(18);  // no infinities, no -0; NaN 0x80
inline constexpr DType kF8E5M2 = DType(19);      // IEEE-like: infinities and NaNs
inline constexpr DType kF8E5M2FNUZ = DType(20);  // no infinities, no -0; NaN 0x80
inline constexpr DType kU4 = DType(21);  // one per byte in memory, two per byte in ONNX files
inline constexpr DType kI4 = DType(22);
inline constexpr DType kF4E2M1 = DType(23);  // 4-bit float: no NaN, no infinities; largest 6
inline constexpr DType kF8E8M0 = DType(24);  // a power of two 2^(bits - 127), unsigned; NaN 0xff
inline constexpr DType kU2 = DType(25);      // one per byte in memory, four per byte in ONNX files
inline constexpr DType kI2 = DType(26);

bool is_float8(DType t);       // the five 8-bit float formats (float8e8m0 included)
bool is_packed_int(DType t);   // int4, uint4, int2, uint2
int packed_int_bits(DType t);  // 4 or 2 for the packed integers, else 0
int packed_bits(DType t);      // the same, and 4 for float4e2m1 (also two per byte in files)

// These also serve float4e2m1 (its bits in the low nibble; NaN becomes its -0 pattern, and it
// always saturates, having no NaN or infinity).
// Converting to an 8-bit float rounds to nearest even; `saturate` clamps out-of-range values
// (infinities included) to the largest finite value, else they become infinity (E5M2) or NaN
// (the others), as ONNX's Cast does.
uint8_t float8_from_double(double value, DType format, bool saturate);

// float8e8m0 holds only an exponent: converting to it rounds |value|'s power of two up (the
// default), down, or to the nearest (half-way, 1.5 * 2^e, to the even exponent). NaN, and
// without `saturate` anything above 2^127 and infinity, give NaN (0xff); zero gives 0x00 (2^-127).
enum class E8M0Rounding { kUp, kDown, kNearest };
uint8_t e8m0_from_double(double value, E8M0Rounding rounding, bool saturate);
float float8_to_float(uint8_t bits, DType format);

// An 8-bit float as its bit pattern; arithmetic happens in float.
template <int Onnx>
struct float8 {
  static constexpr DType kDType = DType(Onnx);
  uint8_t bits = 0;
  float8() = default;
  float8(float value) : bits(float8_from_double(value, kDType, true)) {}  // NOLINT
  operator float() const { return float8_to_float(bits, kDType); }
};
using f8e4m3fn = float8<17>;
using f8e4m3fnuz = float8<18>;
using f8e5m2 = float8<19>;
using f8e5m2fnuz = float8<20>;
using f4e2m1 = float8<23>;  // one per byte in memory (the low 4 bits), two per byte in files
using f8e8m0 = float8<24>;

// Packed integers (int4, uint4, int2, uint2): one value per byte in memory, always in range (a
// value out of range wraps, as integer casts do); ONNX files pack 8 / Bits of them per byte.
template <int Bits, bool Signed, int Onnx>
struct packed_int {
  static constexpr DType kDType = DType(Onnx);
  static constexpr int kBits = Bits;
  static constexpr int kMin = Signed ? -(1 << (Bits - 1)) : 0;
  static constexpr int kMax = Signed ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;
  std::conditional_t<Signed, int8_t, uint8_t> value = 0;
  packed_int() = default;
  packed_int(int64_t v) {  // NOLINT: like a built-in integer
    const int low = int(uint64_t(v) & ((1u << Bits) - 1));
    value = decltype(value)(low > kMax ? low - (1 << Bits) : low);
  }
  operator int32_t() const { return value; }
};
using uint4 = packed_int<4, false, 21>;
using int4 = packed_int<4, true, 22>;
using uint2 = packed_int<2, false, 25>;
using int2 = packed_int<2, true, 26>;

template <class T>
inline constexpr bool is_packed_int_v = std::is_same_v<T, int4> || std::is_same_v<T, uint4> ||
                                        std::is_same_v<T, int2> || std::is_same_v<T, uint2>;

template <>
constexpr DType dtype_of<f8e4m3fn>() {
  return kF8E4M3FN;
}
template <>
constexpr DType dtype_of<f8e4m3fnuz>() {
  return kF8E4M3FNUZ;
}
template <>
constexpr DType dtype_of<f8e5m2>() {
  return kF8E5M2;
}
template <>
constexpr DType dtype_of<f8e5m2fnuz>() {
  return kF8E5M2FNUZ;
}
template <>
constexpr DType dtype_of<f4e2m1>() {
  return kF4E2M1;
}
template <>
constexpr DType dtype_of<f8e8m0>() {
  return kF8E8M0;
}
template <>
constexpr DType dtype_of<int4>() {
  return kI4;
}
template <>
constexpr DType dtype_of<uint4>() {
  return kU4;
}
template <>
constexpr DType dtype_of<int2>() {
  return kI2;
}
template <>
constexpr DType dtype_of<uint2>() {
  return kU2;
}

// What a narrow value computes in: float for the 8-bit floats, int32 for the 4-bit integers.
template <class T>
using narrow_compute_t =
    std::conditional_t<std::is_same_v<T, int4> || std::is_same_v<T, uint4>, int32_t, float>;

// Calls f(Type<T>{}) for the narrow type t; false when t is not narrow.
template <class F>
bool visit_narrow(DType t, F&& f) {
  switch (int(t)) {
    case 17: f(Type<f8e4m3fn>{}); return true;
    case 18: f(Type<f8e4m3fnuz>{}); return true;
    case 19: f(Type<f8e5m2>{}); return true;
    case 20: f(Type<f8e5m2fnuz>{}); return true;
    case 21: f(Type<uint4>{}); return true;
    case 22: f(Type<int4>{}); return true;
    case 23: f(Type<f4e2m1>{}); return true;
    case 24: f(Type<f8e8m0>{}); return true;
    case 25: f(Type<uint2>{}); return true;
    case 26: f(Type<int2>{}); return true;
    default: return false;
  }
}

}  // namespace strata
