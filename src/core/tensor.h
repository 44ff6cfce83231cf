// A dense, contiguous, row-major tensor: dtype + shape + a view of a buffer it may or may not own.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/layout.h"

namespace strata {

// What a value holds: a tensor, or one of ONNX's list types: a sequence of values, or an optional
// value (none, or one). See docs/architecture.md, "Sequences and optionals".
enum class ValueKind : uint8_t { kTensor, kSequence, kOptional };
const char* value_kind_name(ValueKind kind);  // "tensor", "sequence", "optional"

class Tensor {
 public:
  Tensor() = default;

  // A new zero-filled tensor that owns its buffer.
  static Tensor zeros(DType dtype, std::vector<int64_t> shape);
  // The same in `layout` (a blocked buffer holds layout_bytes(), channels padded).
  static Tensor zeros(DType dtype, std::vector<int64_t> shape, Layout layout);
  // A view of memory owned elsewhere (`owner` may keep it alive).
  static Tensor view(DType dtype, std::vector<int64_t> shape, void* data,
                     std::shared_ptr<void> owner = nullptr);
  // A one-dimensional or scalar tensor holding `values` (for tests and folded shapes).
  template <class T>
  static Tensor from(std::vector<int64_t> shape, std::span<const T> values);
  template <class T>
  static Tensor from(std::vector<int64_t> shape, std::initializer_list<T> values) {
    return from<T>(std::move(shape), std::span<const T>(values.begin(), values.size()));
  }

  // A sequence of `items` (each a tensor of `elem`, or itself a sequence) or an optional holding
  // `items` (empty: none; else one). Its dtype is the element type; it has no shape or bytes of
  // its own. The items are shared and never modified: copies of a list value are cheap.
  static Tensor sequence(DType elem, std::vector<Tensor> items);
  static Tensor optional(DType elem, std::vector<Tensor> items);
  ValueKind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == ValueKind::kTensor; }
  const std::vector<Tensor>& items() const;  // empty for a tensor

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t rank() const { return int64_t(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[size_t(i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return size_t(numel_) * dtype_size(dtype_); }
  // Element order in memory: plain row-major unless a fast kernel chose another layout inside a
  // session (a blocked buffer holds layout_bytes(), more than nbytes() when channels are padded).
  Layout layout() const { return layout_; }
  void set_layout(Layout layout) { layout_ = layout; }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }

  // Points this tensor at another buffer of the same size (the session rebinds inputs this way).
  void rebind(void* data, std::shared_ptr<void> owner = nullptr) {
    data_ = data;
    owner_ = std::move(owner);
  }
  // Changes the shape in place; the caller guarantees the buffer is large enough.
  void reshape_unchecked(std::vector<int64_t> shape);
  // Becomes a zero-filled plain tensor of `dtype` and `shape` in the buffer it owns, when it is
  // that buffer's only holder and the new size fits (at most what it holds, at least half); false,
  // and unchanged, otherwise. Sessions keep the buffers of values made while running this way from
  // one run to the next: a fresh buffer's every page faults when first written (27 ms per 50 MB on
  // a VM here, against 2.6 ms to zero the same buffer again).
  bool reuse_as_zeros(DType dtype, const std::vector<int64_t>& shape);

  // Sets every element to the one `dtype_size(dtype())` bytes at `element` points to (memset when
  // they are all zero, else copies of doubling length: a copy per element costs a call each).
  void fill_with(const void* element);

  // A deep copy that owns its buffer.
  Tensor clone() const;
  // True when the tensor keeps its buffer alive (it owns it, or shares its owner): a copy of it
  // (which shares the buffer) stays valid however long this one lives.
  bool keeps_buffer_alive() const { return owner_ != nullptr; }
  // Integer tensor (any integer type) read as int64 values.
  std::vector<int64_t> to_int64() const;
  // Any numeric tensor read as double values.
  std::vector<double> to_double() const;
  std::string shape_str() const;

 private:
  DType dtype_ = DType::kUndefined;
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;
  Layout layout_ = Layout::kPlain;
  ValueKind kind_ = ValueKind::kTensor;
  std::shared_ptr<const std::vector<Tensor>> items_;  // sequences and optionals
};

template <class T>
Tensor Tensor::from(std::vector<int64_t> shape, std::span<const T> values) {
  Tensor t = zeros(dtype_of<T>(), std::move(shape));
  for (size_t i = 0; i < values.size() && int64_t(i) < t.numel(); ++i) t.data<T>()[i] = values[i];
  return t;
}

}  // namespace strata
