// strata::Array (include/strata/tensor.h).
#include "strata/tensor.h"

#include <fmt/format.h>

#include <cstring>

#include "api/convert.h"
#include "core/error.h"
#include "io/npy.h"

namespace strata {

namespace {
size_t byte_count(DType dtype, const std::vector<int64_t>& shape) {
  if (dtype != DType::kString && dtype_size(dtype) == 0)
    fail("an array cannot hold {} values", dtype_name(dtype));
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) fail("an array cannot have a negative dimension ({})", d);
    if (d != 0 && n > (int64_t(1) << 50) / d) fail("an array of this shape is too large");
    n *= d;
  }
  return size_t(n) * dtype_size(dtype);
}
}  // namespace

Array::Array(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)), nbytes_(byte_count(dtype_, shape_)) {
  if (dtype_ == DType::kString)
    strings_.resize(size_t(numel()));
  else
    storage_.assign((nbytes_ + 7) / 8, 0);
}

Array Array::copy_of(DType dtype, std::vector<int64_t> shape, const void* data, size_t nbytes) {
  if (dtype == DType::kString)
    fail("a string array cannot be copied from bytes: set its strings() instead");
  Array a(dtype, std::move(shape));
  if (nbytes != a.nbytes()) fail("{} needs {} bytes, not {}", a.type_string(), a.nbytes(), nbytes);
  if (nbytes) std::memcpy(a.raw(), data, nbytes);
  return a;
}

int64_t Array::numel() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

Array Array::sequence(DType elem, std::vector<Array> items) {
  Array a;
  a.dtype_ = elem;
  a.kind_ = Kind::kSequence;
  a.items_ = std::move(items);
  return a;
}

Array Array::optional(DType elem, std::vector<Array> items) {
  if (items.size() > 1) fail("an optional holds one value or none, not {}", items.size());
  Array a = sequence(elem, std::move(items));
  a.kind_ = Kind::kOptional;
  return a;
}

std::string Array::type_string() const {
  if (!is_tensor())
    return fmt::format("{}[{} of {}]", dtype_name(dtype_),
                       kind_ == Kind::kSequence ? "sequence" : "optional", items_.size());
  return fmt::format("{}[{}]", dtype_name(dtype_), fmt::join(shape_, ","));
}

void save_npy(const std::string& path, const Array& array) {
  if (!array.is_tensor())
    fail("{}: a {} value cannot be written as .npy (a file of one tensor)", path,
         array.type_string());
  io::write_npy(path, api::to_tensor(array));
}

}  // namespace strata
