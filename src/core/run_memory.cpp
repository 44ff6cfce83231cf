#include "core/run_memory.h"

#include <limits>

#include "core/error.h"
#include "core/tensor.h"

namespace strata {

namespace {

thread_local RunMemoryScope* innermost = nullptr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kMax : r;
}

}  // namespace

RunMemoryScope::RunMemoryScope(int64_t limit, int64_t planned)
    : limit_(limit), planned_(planned), outer_(innermost) {
  innermost = this;
}

RunMemoryScope::~RunMemoryScope() {
  innermost = outer_;
}

void RunMemoryScope::charge(int64_t bytes, std::string_view what, int64_t index) {
  if (bytes > limit_ - planned_ - used_)  // prepare kept planned_ within limit_: no overflow
    fail(
        "{}{} needs {} bytes while running, over the memory limit of {} bytes (--max-memory) "
        "with the {} bytes planned at prepare and the {} this run already holds",
        what, index >= 0 ? fmt::format(" {}", index) : "", bytes, limit_, planned_, used_);
  used_ += bytes;
}

void charge_run_memory(int64_t bytes, std::string_view what, int64_t index) {
  if (innermost) innermost->charge(bytes, what, index);
}

int64_t list_bytes(const std::vector<Tensor>& items) {
  int64_t data = 0;
  for (const Tensor& t : items)
    data = saturating_add(data, t.is_tensor() ? int64_t(t.nbytes()) : list_bytes(t.items()));
  return list_bytes(int64_t(items.size()), data);
}

int64_t list_bytes(int64_t count, int64_t data_bytes) {
  constexpr int64_t item = int64_t(sizeof(Tensor));
  return saturating_add(count > kMax / item ? kMax : count * item, data_bytes);
}

}  // namespace strata
