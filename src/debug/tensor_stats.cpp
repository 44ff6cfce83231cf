#include "debug/tensor_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace strata::debug {

TensorStats tensor_stats(const Tensor& t, size_t first_count) {
  TensorStats s;
  if (dtype_size(t.dtype()) == 0) return s;  // strings: counted as nothing
  const std::vector<double> v = t.to_double();
  s.count = int64_t(v.size());
  double sum = 0;
  for (double x : v) {
    if (std::isnan(x)) {
      ++s.nans;
      continue;
    }
    if (std::isinf(x)) {
      ++s.infs;
      continue;
    }
    if (s.finite == 0) s.min = s.max = x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
    sum += x;
    ++s.finite;
  }
  if (s.finite > 0) {
    s.mean = sum / double(s.finite);
    double squares = 0;
    for (double x : v)
      if (std::isfinite(x)) squares += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(squares / double(s.finite));
  }
  s.first.assign(v.begin(), v.begin() + std::ptrdiff_t(std::min(first_count, v.size())));
  return s;
}

std::string format_stats(const Tensor& t, const TensorStats& s) {
  std::string first;
  for (double x : s.first) first += fmt::format(" {:.6g}", x);
  return fmt::format(
      "{}{}  min {:.6g}  max {:.6g}  mean {:.6g}  sd {:.6g}  NaN {}  Inf {}  first{}",
      dtype_name(t.dtype()), t.shape_str(), s.min, s.max, s.mean, s.sd, s.nans, s.infs,
      first.empty() ? " (empty)" : first);
}

}  // namespace strata::debug
