// Element types. Numbering follows ONNX TensorProto.DataType so files map directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "strata/dtype.h"  // DType, dtype_size, dtype_name: part of the public API

namespace strata {

// IEEE half precision, stored as bits; arithmetic happens in float.
struct f16 {
  uint16_t bits = 0;
  f16() = default;
  f16(float value);  // NOLINT: implicit like a built-in float type
  operator float() const;
};

// bfloat16: the top 16 bits of a float32.
struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  bf16(float value);  // NOLINT
  operator float() const {
    uint32_t u = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
};

bool dtype_from_onnx(int onnx_type, DType* out);
bool is_float(DType t);    // f16, bf16, f32, f64
bool is_integer(DType t);  // signed or unsigned integers (not bool)
bool is_signed(DType t);
bool is_8_bit(DType t);  // int8, uint8 (quantized data)

template <class T>
struct Type {
  using type = T;
};

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::kF32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kF64;
}
template <>
constexpr DType dtype_of<f16>() {
  return DType::kF16;
}
template <>
constexpr DType dtype_of<bf16>() {
  return DType::kBF16;
}
template <>
constexpr DType dtype_of<int8_t>() {
  return DType::kI8;
}
template <>
constexpr DType dtype_of<int16_t>() {
  return DType::kI16;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::kI32;
}
template <>
constexpr DType dtype_of<int64_t>() {
  return DType::kI64;
}
template <>
constexpr DType dtype_of<uint8_t>() {
  return DType::kU8;
}
template <>
constexpr DType dtype_of<uint16_t>() {
  return DType::kU16;
}
template <>
constexpr DType dtype_of<uint32_t>() {
  return DType::kU32;
}
template <>
constexpr DType dtype_of<uint64_t>() {
  return DType::kU64;
}
template <>
constexpr DType dtype_of<bool>() {
  return DType::kBool;
}

// Calls f(Type<T>{}) for the C++ type of t. Returns false when t is not in the visited set.
template <class F>
bool visit_float(DType t, F&& f) {
  switch (t) {
    case DType::kF32: f(Type<float>{}); return true;
    case DType::kF64: f(Type<double>{}); return true;
    case DType::kF16: f(Type<f16>{}); return true;
    case DType::kBF16: f(Type<bf16>{}); return true;
    default: return false;
  }
}

template <class F>
bool visit_integer(DType t, F&& f) {
  switch (t) {
    case DType::kI8: f(Type<int8_t>{}); return true;
    case DType::kI16: f(Type<int16_t>{}); return true;
    case DType::kI32: f(Type<int32_t>{}); return true;
    case DType::kI64: f(Type<int64_t>{}); return true;
    case DType::kU8: f(Type<uint8_t>{}); return true;
    case DType::kU16: f(Type<uint16_t>{}); return true;
    case DType::kU32: f(Type<uint32_t>{}); return true;
    case DType::kU64: f(Type<uint64_t>{}); return true;
    default: return false;
  }
}

// The 8-bit integers (quantized data).
template <class F>
bool visit_8_bit(DType t, F&& f) {
  switch (t) {
    case DType::kI8: f(Type<int8_t>{}); return true;
    case DType::kU8: f(Type<uint8_t>{}); return true;
    default: return false;
  }
}

// Floats and integers (no bool).
template <class F>
bool visit_numeric(DType t, F&& f) {
  return visit_float(t, f) || visit_integer(t, f);
}

// Every type with a fixed size, bool included.
template <class F>
bool visit_all(DType t, F&& f) {
  if (t == DType::kBool) {
    f(Type<bool>{});
    return true;
  }
  return visit_numeric(t, f);
}

}  // namespace strata
