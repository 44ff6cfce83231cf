#include "core/shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_set>

#include "core/checked.h"
#include "core/error.h"

namespace strata {

namespace {

// The one copy of each symbol name. Never freed: dims may live in objects destroyed at exit.
const std::string* intern(std::string_view name) {
  static std::mutex mutex;
  static auto* names = new std::unordered_set<std::string>;
  const std::lock_guard<std::mutex> lock(mutex);
  return &*names->emplace(name).first;
}

}  // namespace

Dim Dim::symbol(std::string_view name) {
  Dim d;
  if (!name.empty()) d.symbol_ = intern(name);
  return d;
}

Dim Dim::unknown() {
  static std::atomic<int> counter{0};
  return symbol(fmt::format("?{}", counter++));
}

void Dim::throw_not_static() {
  throw NotStatic{};
}

const std::string& Dim::symbol() const {
  static const std::string none;
  return symbol_ ? *symbol_ : none;
}

std::string Dim::str() const {
  return is_static() ? std::to_string(value_) : *symbol_;
}

namespace {
Dim combine(const Dim& a, const Dim& b, const char* op) {
  return Dim::symbol(fmt::format("({}{}{})", a.str(), op, b.str()));
}
}  // namespace

Dim operator+(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) return checked_add(a.value_, b.value_);
  if (a.is_static() && a.value_ == 0) return b;
  if (b.is_static() && b.value_ == 0) return a;
  return combine(a, b, "+");
}

Dim operator-(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) return a.value_ - b.value_;
  if (b.is_static() && b.value_ == 0) return a;
  return combine(a, b, "-");
}

Dim operator*(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) {
    int64_t r;
    if (__builtin_mul_overflow(a.value_, b.value_, &r))
      fail("size overflow: {} x {}", a.value_, b.value_);
    return r;
  }
  if (a.is_static() && a.value_ == 1) return b;
  if (b.is_static() && b.value_ == 1) return a;
  return combine(a, b, "*");
}

Dim floor_div(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) {
    if (b.value_ == 0) fail("division by zero in a shape computation");
    int64_t q = a.value_ / b.value_;
    if ((a.value_ % b.value_ != 0) && ((a.value_ < 0) != (b.value_ < 0))) --q;
    return q;
  }
  if (b.is_static() && b.value_ == 1) return a;
  return combine(a, b, "//");
}

Dim ceil_div(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) return -floor_div(-a.value_, b).value_;
  if (b.is_static() && b.value_ == 1) return a;
  return Dim::symbol(fmt::format("ceil({}/{})", a.str(), b.str()));
}

Shape Shape::of(std::span<const int64_t> dims) {
  Shape s;
  s.reserve(dims.size());
  for (int64_t d : dims) s.data()[s.size_++] = d;
  return s;
}

void Shape::reserve(size_t rank) {
  if (rank <= capacity_) return;
  if (rank > UINT32_MAX) fail("rank {} is too large", rank);
  Dim* dims = new Dim[rank];
  std::copy(data(), data() + size_, dims);
  delete[] heap_;
  heap_ = dims;
  capacity_ = uint32_t(rank);
}

void Shape::insert(size_t index, Dim d) {
  if (index > size_) fail_internal("dim {} inserted into a shape of rank {}", index, size_);
  push_back(d);
  std::rotate(data() + index, data() + size_ - 1, data() + size_);
}

void Shape::assign(const Dim* dims, size_t rank) {
  size_ = 0;
  reserve(rank);
  std::copy(dims, dims + rank, data());
  size_ = uint32_t(rank);
}

void Shape::take(Shape& other) {
  if (other.heap_) {
    heap_ = other.heap_;
    capacity_ = other.capacity_;
    other.heap_ = nullptr;
    other.capacity_ = kInlineRank;
  } else {
    std::copy(other.inline_, other.inline_ + other.size_, inline_);
    capacity_ = kInlineRank;
  }
  size_ = other.size_;
  other.size_ = 0;
}

bool operator==(const Shape& a, const Shape& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

bool Shape::is_static() const {
  for (const Dim& d : *this)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> Shape::values() const {
  std::vector<int64_t> v;
  v.reserve(size_);
  for (const Dim& d : *this) v.push_back(d.value());
  return v;
}

Dim Shape::numel() const {
  Dim n = 1;
  for (const Dim& d : *this) n = n * d;
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (uint32_t i = 0; i < size_; ++i) {
    if (i) s += ",";
    s += data()[i].str();
  }
  return s + "]";
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* what) {
  const int64_t lo = rank == 0 ? -1 : -rank;
  const int64_t hi = rank == 0 ? 0 : rank - 1;
  if (axis < lo || axis > hi) fail("{} {} is out of range for rank {}", what, axis, rank);
  return axis < 0 ? axis + (rank == 0 ? 1 : rank) : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const int64_t rank = std::max(a.rank(), b.rank());
  Shape out;
  out.reserve(size_t(rank));
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t ia = i - (rank - a.rank());
    const int64_t ib = i - (rank - b.rank());
    const Dim da = ia >= 0 ? a[ia] : Dim(1);
    const Dim db = ib >= 0 ? b[ib] : Dim(1);
    if (da == db || (db.is_static() && db.value() == 1)) {
      out.push_back(da);
    } else if (da.is_static() && da.value() == 1) {
      out.push_back(db);
    } else if (da.is_static() && db.is_static()) {
      fail("shapes {} and {} cannot be broadcast", a.str(), b.str());
    } else {
      throw NotStatic{};  // symbolic dims that may or may not be 1
    }
  }
  return out;
}

}  // namespace strata
