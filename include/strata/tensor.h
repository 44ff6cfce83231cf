// strata::Array: a dense, row-major tensor that owns its bytes — what goes into and comes out of
// the API (inputs, outputs, compared values).
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
  Array() = default;
  // Zero-filled. Throws strata::Error for a string or undefined dtype, or a negative dim.
  Array(DType dtype, std::vector<int64_t> shape);
  // A copy of `nbytes` bytes at `data` (must be numel * dtype_size bytes).
  static Array copy_of(DType dtype, std::vector<int64_t> shape, const void* data, size_t nbytes);

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
  // "float32[1,3,224,224]"
  std::string type_string() const;

 private:
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> shape_;
  std::vector<uint64_t> storage_;  // whole 8-byte words: aligned for every dtype
  size_t nbytes_ = 0;
};

// Writes `array` as a .npy file (numpy's format) atomically; throws strata::Error naming the path
// when it cannot be written, or for bfloat16, which .npy cannot hold.
void save_npy(const std::string& path, const Array& array);

}  // namespace strata
