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
  if (dtype == DType::kString || dtype_size(dtype) == 0)
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
  storage_.assign((nbytes_ + 7) / 8, 0);
}

Array Array::copy_of(DType dtype, std::vector<int64_t> shape, const void* data, size_t nbytes) {
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

std::string Array::type_string() const {
  return fmt::format("{}[{}]", dtype_name(dtype_), fmt::join(shape_, ","));
}

void save_npy(const std::string& path, const Array& array) {
  io::write_npy(path, api::to_tensor(array));
}

}  // namespace strata
