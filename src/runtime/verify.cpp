#include "runtime/verify.h"

#include <fmt/format.h>

#include <cmath>

namespace strata::runtime {

Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tol) {
  Comparison c;
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
  const std::vector<double> a = actual.to_double();
  const std::vector<double> e = expected.to_double();
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
      match = abs_err <= tol.atol + tol.rtol * std::fabs(e[i]);
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
