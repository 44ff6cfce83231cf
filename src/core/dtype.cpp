#include "core/dtype.h"

#include "core/narrow_types.h"

namespace strata {

f16::f16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xffu) {  // inf or nan
    bits = uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
    return;
  }
  const int e = int(exp) - 127 + 15;
  if (e >= 0x1f) {  // overflow to inf
    bits = uint16_t(sign | 0x7c00u);
    return;
  }
  if (e <= 0) {  // subnormal or zero
    if (e < -10) {
      bits = uint16_t(sign);
      return;
    }
    mant |= 0x800000u;
    const int shift = 14 - e;
    uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
    bits = uint16_t(sign | half_mant);
    return;
  }
  uint32_t h = sign | (uint32_t(e) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h;  // round to nearest even; may carry into exp
  bits = uint16_t(h);
}

f16::operator float() const {
  const uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  const uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

bf16::bf16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof x);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // nan stays nan
    bits = uint16_t((x >> 16) | 0x40u);
    return;
  }
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  bits = uint16_t((x + rounding) >> 16);
}

size_t dtype_size(DType t) {
  if (is_float8(t) || packed_bits(t)) return 1;
  switch (t) {
    case DType::kF32:
    case DType::kI32:
    case DType::kU32: return 4;
    case DType::kF64:
    case DType::kI64:
    case DType::kU64: return 8;
    case DType::kF16:
    case DType::kBF16:
    case DType::kI16:
    case DType::kU16: return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool: return 1;
    default: return 0;
  }
}

std::string_view dtype_name(DType t) {
  switch (int(t)) {  // the narrow types (core/narrow_types.h) are not enumerators
    case 17: return "float8e4m3fn";
    case 18: return "float8e4m3fnuz";
    case 19: return "float8e5m2";
    case 20: return "float8e5m2fnuz";
    case 21: return "uint4";
    case 22: return "int4";
    case 23: return "float4e2m1";
    case 24: return "float8e8m0";
    case 25: return "uint2";
    case 26: return "int2";
    default: break;
  }
  switch (t) {
    case DType::kF32: return "float32";
    case DType::kF64: return "float64";
    case DType::kF16: return "float16";
    case DType::kBF16: return "bfloat16";
    case DType::kI8: return "int8";
    case DType::kI16: return "int16";
    case DType::kI32: return "int32";
    case DType::kI64: return "int64";
    case DType::kU8: return "uint8";
    case DType::kU16: return "uint16";
    case DType::kU32: return "uint32";
    case DType::kU64: return "uint64";
    case DType::kBool: return "bool";
    case DType::kString: return "string";
    default: return "undefined";
  }
}

bool dtype_from_onnx(int onnx_type, DType* out) {
  switch (onnx_type) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16:
    case 17:
    case 18:
    case 19:
    case 20:
    case 21:
    case 22:
    case 23:
    case 24:
    case 25:
    case 26: *out = DType(onnx_type); return true;
    default: return false;
  }
}

bool is_float(DType t) {
  return t == DType::kF32 || t == DType::kF64 || t == DType::kF16 || t == DType::kBF16;
}

bool is_signed(DType t) {
  return t == DType::kI8 || t == DType::kI16 || t == DType::kI32 || t == DType::kI64;
}

bool is_integer(DType t) {
  return is_signed(t) || t == DType::kU8 || t == DType::kU16 || t == DType::kU32 ||
         t == DType::kU64;
}

bool is_8_bit(DType t) {
  return t == DType::kI8 || t == DType::kU8;
}

}  // namespace strata
