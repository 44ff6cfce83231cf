// strata::Array: a dense, row-major tensor that owns its bytes (a string tensor: its strings), or
// an ONNX sequence or optional of arrays — what goes into and comes out of the API (inputs,
// outputs, compared values).
//
//   strata::Array x(strata::DType::kF32, {1, 3, 224, 224});  // zero-filled
//   float* p = x.data<float>();
//   p[0] = 1.0f;
//   std::printf("%s %zu bytes\n", x.type_string().c_str(), x.nbytes());  // float32[1,3,224,224]
//   strata::save_npy("x.npy", x);  // numpy.load("x.npy")
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "strata/dtype.h"

namespace strata {

class Array {
 public:
  // A tensor, or one of ONNX's list values: a sequence of values or an optional holding one.
  enum class Kind { kTensor, kSequence, kOptional };

  Array() = default;
  // Zero-filled (a string array: empty strings). Throws strata::Error for an undefined dtype or a
  // negative dim.
  Array(DType dtype, std::vector<int64_t> shape);
  // A copy of `nbytes` bytes at `data` (must be numel * dtype_size bytes); not for strings.
  static Array copy_of(DType dtype, std::vector<int64_t> shape, const void* data, size_t nbytes);
  // A sequence of `items` (arrays of `elem`, or sequences) or an optional holding `items` (none
  // or one). Its dtype is `elem`; it has no shape or bytes of its own.
  //   strata::Array s = strata::Array::sequence(strata::DType::kI64, {a, b});  // int64[sequence of
  //   2]
  static Array sequence(DType elem, std::vector<Array> items);
  static Array optional(DType elem, std::vector<Array> items);

  Kind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  const std::vector<Array>& items() const { return items_; }  // empty for a tensor
  // A string tensor's elements, row-major (empty for other dtypes, whose bytes are at raw()).
  std::vector<std::string>& strings() { return strings_; }
  const std::vector<std::string>& strings() const { return strings_; }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const;
  size_t nbytes() const { return nbytes_; }
  void* raw() { return storage_.data(); }
  const void* raw() const { return storage_.data(); }
  template <class T>
  T* data() {
    return reinterpret_cast<T*>(storage_.data());
  }
  template <class T>
  const T* data() const {
    return reinterpret_cast<const T*>(storage_.data());
  }
  // "float32[1,3,224,224]"; "int64[sequence of 3]" for a sequence
  std::string type_string() const;

 private:
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> shape_;
  std::vector<uint64_t> storage_;  // whole 8-byte words: aligned for every dtype
  size_t nbytes_ = 0;
  Kind kind_ = Kind::kTensor;
  std::vector<Array> items_;          // sequences and optionals
  std::vector<std::string> strings_;  // string tensors
};

// Writes `array` as a .npy file (numpy's format) atomically; throws strata::Error naming the path
// when it cannot be written, or for bfloat16, strings and lists, which .npy cannot hold.
void save_npy(const std::string& path, const Array& array);

}  // namespace strata
