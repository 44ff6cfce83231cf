#include "core/shape.h"

#include <fmt/format.h>

#include <atomic>

#include "core/checked.h"
#include "core/error.h"

namespace strata {

Dim Dim::symbol(std::string name) {
  Dim d;
  d.symbol_ = std::move(name);
  return d;
}

Dim Dim::unknown() {
  static std::atomic<int> counter{0};
  return symbol(fmt::format("?{}", counter++));
}

int64_t Dim::value() const {
  if (!is_static()) throw NotStatic{};
  return value_;
}

std::string Dim::str() const {
  return is_static() ? std::to_string(value_) : symbol_;
}

bool operator==(const Dim& a, const Dim& b) {
  return a.symbol_ == b.symbol_ && (!a.is_static() || a.value_ == b.value_);
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

Shape Shape::of(const std::vector<int64_t>& dims) {
  Shape s;
  s.dims_.assign(dims.begin(), dims.end());
  return s;
}

bool Shape::is_static() const {
  for (const Dim& d : dims_)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> Shape::values() const {
  std::vector<int64_t> v;
  v.reserve(dims_.size());
  for (const Dim& d : dims_) v.push_back(d.value());
  return v;
}

Dim Shape::numel() const {
  Dim n = 1;
  for (const Dim& d : dims_) n = n * d;
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i].str();
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
  out.dims().reserve(size_t(rank));
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
