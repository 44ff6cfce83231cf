#include "runtime/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace strata::runtime {

namespace {

// IEEE bit patterns mapped to integers that order like the values (-0 and +0 both 0), so the
// difference of two counts the representable values between them.
template <class Bits>
int64_t ordered(Bits bits, int sign_shift) {
  const Bits sign = Bits(Bits(1) << sign_shift);
  const int64_t magnitude = int64_t(bits & Bits(sign - 1));
  return bits & sign ? -magnitude : magnitude;
}

int64_t ordered_bits(double x, DType dtype) {
  switch (dtype) {
    case DType::kF64: {
      const uint64_t bits = std::bit_cast<uint64_t>(x);
      const int64_t magnitude = int64_t(bits & ~(uint64_t(1) << 63));
      return bits >> 63 ? -magnitude : magnitude;
    }
    case DType::kF32: return ordered(std::bit_cast<uint32_t>(float(x)), 31);
    case DType::kF16: return ordered(f16(float(x)).bits, 15);
    case DType::kBF16: return ordered(bf16(float(x)).bits, 15);
    default: return 0;
  }
}

}  // namespace

int64_t ulp_distance(double a, double b, DType dtype) {
  if (!is_float(dtype)) {
    const double d = std::fabs(a - b);
    return d >= 9.2e18 ? std::numeric_limits<int64_t>::max() : int64_t(d);
  }
  const int64_t x = ordered_bits(a, dtype), y = ordered_bits(b, dtype);
  // Only float64 patterns can overflow the difference; saturate.
  if ((x > 0 && y < 0 && x > std::numeric_limits<int64_t>::max() + y) ||
      (x < 0 && y > 0 && y > std::numeric_limits<int64_t>::max() + x))
    return std::numeric_limits<int64_t>::max();
  return x > y ? x - y : y - x;
}

Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
  Comparison c;
  if (actual.kind() != expected.kind()) {
    c.problem = fmt::format("a {} differs from the expected {}", value_kind_name(actual.kind()),
                            value_kind_name(expected.kind()));
    return c;
  }
  if (!actual.is_tensor()) {  // lists: item by item, the worst errors kept
    if (actual.items().size() != expected.items().size()) {
      c.problem = fmt::format("{} items differ from the expected {}", actual.items().size(),
                              expected.items().size());
      return c;
    }
    c.ok = true;
    for (size_t i = 0; i < actual.items().size(); ++i) {
      const Comparison item = compare(actual.items()[i], expected.items()[i], tol);
      c.max_abs_error = std::max(c.max_abs_error, item.max_abs_error);
      c.max_rel_error = std::max(c.max_rel_error, item.max_rel_error);
      c.max_ulp = std::max(c.max_ulp, item.max_ulp);
      c.cosine = std::min(c.cosine, item.cosine);
      c.mismatches += item.mismatches;
      if (!item.ok && c.ok) {
        c.ok = false;
        c.problem =
            fmt::format("item {}: {}", i, item.problem.empty() ? "values differ" : item.problem);
      }
    }
    return c;
  }
  if (actual.dtype() != expected.dtype()) {
    c.problem = fmt::format("dtype {} differs from the expected {}", dtype_name(actual.dtype()),
                            dtype_name(expected.dtype()));
    return c;
  }
  if (actual.shape() != expected.shape()) {
    c.problem = fmt::format("shape {} differs from the expected {}", actual.shape_str(),
                            expected.shape_str());
    return c;
  }
  if (actual.dtype() == DType::kString) {  // exact, element by element
    const std::string* a = actual.data<std::string>();
    const std::string* e = expected.data<std::string>();
    for (int64_t i = 0; i < actual.numel(); ++i)
      if (a[i] != e[i]) {
        if (c.first_mismatch < 0) c.first_mismatch = i;
        ++c.mismatches;
      }
    c.ok = c.mismatches == 0;
    c.cosine = c.ok ? 1 : 0;
    if (!c.ok)
      c.problem = fmt::format(
          "{} of {} strings differ (first at flat index {}: \"{}\" vs expected \"{}\")",
          c.mismatches, actual.numel(), c.first_mismatch, a[c.first_mismatch], e[c.first_mismatch]);
    return c;
  }
  const std::vector<double> a = actual.to_double();
  const std::vector<double> e = expected.to_double();
  double scale = 0;  // rms of the expected finite values, with relative_to_tensor
  if (tol.relative_to_tensor) {
    double squares = 0;
    size_t finite = 0;
    for (double x : e)
      if (std::isfinite(x)) {
        squares += x * x;
        ++finite;
      }
    if (finite) scale = std::sqrt(squares / double(finite));
  }
  double dot = 0, na = 0, ne = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool a_nan = std::isnan(a[i]), e_nan = std::isnan(e[i]);
    bool match;
    if (a_nan || e_nan) {
      match = a_nan && e_nan;
    } else if (std::isinf(a[i]) || std::isinf(e[i])) {
      match = a[i] == e[i];
    } else {
      const double abs_err = std::fabs(a[i] - e[i]);
      c.max_abs_error = std::max(c.max_abs_error, abs_err);
      if (e[i] != 0) c.max_rel_error = std::max(c.max_rel_error, abs_err / std::fabs(e[i]));
      match = abs_err <= tol.atol + tol.rtol * std::max(std::fabs(e[i]), scale);
      if (abs_err > 0) c.max_ulp = std::max(c.max_ulp, ulp_distance(a[i], e[i], actual.dtype()));
      dot += a[i] * e[i];
      na += a[i] * a[i];
      ne += e[i] * e[i];
    }
    if (!match) {
      if (c.first_mismatch < 0) c.first_mismatch = int64_t(i);
      ++c.mismatches;
    }
  }
  if (na > 0 && ne > 0)
    c.cosine = dot / (std::sqrt(na) * std::sqrt(ne));
  else
    c.cosine = (na == 0 && ne == 0) ? 1 : 0;
  c.ok = c.mismatches == 0;
  if (!c.ok)
    c.problem = fmt::format("{} of {} values differ (first at flat index {}: {} vs expected {})",
                            c.mismatches, a.size(), c.first_mismatch, a[size_t(c.first_mismatch)],
                            e[size_t(c.first_mismatch)]);
  return c;
}

}  // namespace strata::runtime
