// The narrow storage types: the four 8-bit float formats and 4-bit integers. They are DType values
// (ONNX TensorProto numbers 17-22) named here rather than in dtype.h because only conversions,
// quantization, data movement and file reading handle them; arithmetic kernels never visit them.
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

bool is_float8(DType t);  // the four 8-bit float formats
bool is_int4(DType t);    // int4, uint4

// Converting to an 8-bit float rounds to nearest even; `saturate` clamps out-of-range values
// (infinities included) to the largest finite value, else they become infinity (E5M2) or NaN
// (the others), as ONNX's Cast does.
uint8_t float8_from_double(double value, DType format, bool saturate);
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

// 4-bit integers, one per byte, always in range (a value out of range wraps, as integer casts do).
struct int4 {
  static constexpr DType kDType = kI4;
  int8_t value = 0;
  int4() = default;
  int4(int64_t v) : value(int8_t(int8_t(uint8_t(v << 4)) >> 4)) {}  // NOLINT
  operator int32_t() const { return value; }
};
struct uint4 {
  static constexpr DType kDType = kU4;
  uint8_t value = 0;
  uint4() = default;
  uint4(int64_t v) : value(uint8_t(v & 15)) {}  // NOLINT
  operator int32_t() const { return value; }
};

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
constexpr DType dtype_of<int4>() {
  return kI4;
}
template <>
constexpr DType dtype_of<uint4>() {
  return kU4;
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
    default: return false;
  }
}

}  // namespace strata
