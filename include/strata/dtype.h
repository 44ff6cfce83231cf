// Element types of tensors (strata::DType), numbered as ONNX TensorProto.DataType.
#pragma once

#include <cstddef>
#include <string_view>

namespace strata {

enum class DType : int {
  kUndefined = 0,
  kF32 = 1,
  kU8 = 2,
  kI8 = 3,
  kU16 = 4,
  kI16 = 5,
  kI32 = 6,
  kI64 = 7,
  kString = 8,
  kBool = 9,
  kF16 = 10,
  kF64 = 11,
  kU32 = 12,
  kU64 = 13,
  kBF16 = 16,
};

size_t dtype_size(DType t);            // bytes per element; 0 for undefined and string
std::string_view dtype_name(DType t);  // "float32", "int64", ... (numpy's names)

}  // namespace strata
