#include "runtime/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace strata::runtime {

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
