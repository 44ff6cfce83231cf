#include "core/tensor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "core/checked.h"
#include "core/error.h"
#include "core/narrow_types.h"

namespace strata {

namespace {
constexpr size_t kAlignment = 64;  // a cache line; what vector kernels want

std::shared_ptr<void> aligned_buffer(size_t bytes) {
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  // One allocation for the buffer and its reference count (folded shape values are small and
  // many), aligned inside: a block kAlignment larger leaves room to align its start.
  const size_t space = (rounded == 0 ? kAlignment : rounded) + kAlignment;
  std::shared_ptr<std::byte[]> block;
  try {
    block = std::make_shared_for_overwrite<std::byte[]>(space);
  } catch (const std::bad_alloc&) {
    fail("out of memory allocating {} bytes", bytes);
  }
  void* p = block.get();
  size_t left = space;
  std::align(kAlignment, space - kAlignment, p, left);
  std::memset(p, 0, space - kAlignment);
  return std::shared_ptr<void>(std::move(block), p);
}
}  // namespace

Tensor Tensor::zeros(DType dtype, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = checked_numel(shape);
  t.shape_ = std::move(shape);
  if (dtype == DType::kString) {  // an array of std::string (empty), owned like any buffer
    std::shared_ptr<std::string[]> strings;
    try {
      strings = std::make_shared<std::string[]>(size_t(t.numel_));
    } catch (const std::bad_alloc&) {
      fail("out of memory allocating {} strings", t.numel_);
    }
    t.data_ = strings.get();
    t.owner_ = std::move(strings);
    return t;
  }
  const int64_t bytes = checked_mul(t.numel_, int64_t(dtype_size(dtype)));
  t.owner_ = aligned_buffer(size_t(bytes));
  t.data_ = t.owner_.get();
  return t;
}

Tensor Tensor::zeros(DType dtype, std::vector<int64_t> shape, Layout layout) {
  const int64_t bytes = layout_bytes(dtype, shape, layout);
  Tensor t = view(dtype, std::move(shape), nullptr, aligned_buffer(size_t(bytes)));
  t.data_ = t.owner_.get();
  t.layout_ = layout;
  return t;
}

Tensor Tensor::view(DType dtype, std::vector<int64_t> shape, void* data,
                    std::shared_ptr<void> owner) {
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = checked_numel(shape);
  t.shape_ = std::move(shape);
  t.data_ = data;
  t.owner_ = std::move(owner);
  return t;
}

bool Tensor::reuse_as_zeros(DType dtype, const std::vector<int64_t>& shape) {
  if (kind_ != ValueKind::kTensor || dtype_ == DType::kString || dtype == DType::kString ||
      layout_ != Layout::kPlain || !owner_ || owner_.get() != data_ || owner_.use_count() != 1)
    return false;
  const int64_t numel = checked_numel(shape);
  const int64_t bytes = checked_mul(numel, int64_t(dtype_size(dtype)));
  const int64_t held = int64_t(nbytes());
  if (bytes > held || bytes * 2 < held) return false;
  dtype_ = dtype;
  shape_ = shape;
  numel_ = numel;
  if (bytes) std::memset(data_, 0, size_t(bytes));
  return true;
}

void Tensor::fill_with(const void* element) {
  const size_t elem = dtype_size(dtype_);
  const size_t total = nbytes();
  if (total == 0) return;
  auto* to = static_cast<std::byte*>(data_);
  const auto* from = static_cast<const std::byte*>(element);
  if (std::all_of(from, from + elem, [](std::byte b) { return b == std::byte{0}; })) {
    std::memset(to, 0, total);
    return;
  }
  std::memcpy(to, from, elem);
  for (size_t done = elem; done < total; done *= 2)
    std::memcpy(to + done, to, std::min(done, total - done));
}

void Tensor::reshape_unchecked(std::vector<int64_t> shape) {
  numel_ = checked_numel(shape);
  shape_ = std::move(shape);
}

const char* value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kSequence: return "sequence";
    case ValueKind::kOptional: return "optional";
    default: return "tensor";
  }
}

Tensor Tensor::sequence(DType elem, std::vector<Tensor> items) {
  Tensor t;
  t.dtype_ = elem;
  t.kind_ = ValueKind::kSequence;
  t.items_ = std::make_shared<const std::vector<Tensor>>(std::move(items));
  return t;
}

Tensor Tensor::optional(DType elem, std::vector<Tensor> items) {
  Tensor t = sequence(elem, std::move(items));
  t.kind_ = ValueKind::kOptional;
  return t;
}

const std::vector<Tensor>& Tensor::items() const {
  static const std::vector<Tensor> kNone;
  return items_ ? *items_ : kNone;
}

Tensor Tensor::clone() const {
  if (!is_tensor()) return *this;  // items are shared and never modified
  Tensor t = zeros(dtype_, shape_);
  if (dtype_ == DType::kString)
    std::copy(data<std::string>(), data<std::string>() + numel_, t.data<std::string>());
  else if (nbytes())
    std::memcpy(t.data_, data_, nbytes());
  return t;
}

std::vector<int64_t> Tensor::to_int64() const {
  std::vector<int64_t> out(static_cast<size_t>(numel_));
  const bool ok = visit_integer(dtype_, [&]<class T>(Type<T>) {
    for (int64_t i = 0; i < numel_; ++i) out[size_t(i)] = int64_t(data<T>()[i]);
  });
  if (!ok && dtype_ == DType::kBool) {
    for (int64_t i = 0; i < numel_; ++i) out[size_t(i)] = data<bool>()[i];
  } else if (!ok && is_packed_int(dtype_)) {
    visit_narrow(dtype_, [&]<class T>(Type<T>) {
      for (int64_t i = 0; i < numel_; ++i) out[size_t(i)] = int64_t(float(data<T>()[i]));
    });
  } else if (!ok) {
    fail("expected an integer tensor, got {}", dtype_name(dtype_));
  }
  return out;
}

std::vector<double> Tensor::to_double() const {
  std::vector<double> out(static_cast<size_t>(numel_));
  const auto read = [&]<class T>(Type<T>) {
    for (int64_t i = 0; i < numel_; ++i) out[size_t(i)] = double(data<T>()[i]);
  };
  const bool ok = visit_all(dtype_, read) || visit_narrow(dtype_, read);
  if (!ok) fail("expected a numeric tensor, got {}", dtype_name(dtype_));
  return out;
}

std::string Tensor::shape_str() const {
  if (!is_tensor()) return fmt::format("[{} of {}]", value_kind_name(kind_), items().size());
  std::string s = "[";
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape_[i]);
  }
  return s + "]";
}

}  // namespace strata
