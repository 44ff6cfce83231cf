// One tensor summarised in a line: what `strata run --io-dump` prints per value and what the
// finite check counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata::debug {

struct TensorStats {
  int64_t count = 0;   // elements
  int64_t finite = 0;  // elements that are neither NaN nor infinite
  int64_t nans = 0;
  int64_t infs = 0;                           // +Inf and -Inf
  double min = 0, max = 0, mean = 0, sd = 0;  // over the finite elements (0 when there are none)
  std::vector<double> first;                  // the first few elements, flat order
};

// `t` must be plain (row-major) and numeric; `first_count` elements are kept in `first`.
TensorStats tensor_stats(const Tensor& t, size_t first_count = 8);

// "float32[1,64,56,56]  min -3.2 max 5.1 mean 0.013 sd 0.98  NaN 0 Inf 0  first 0.1 0.2 ..."
std::string format_stats(const Tensor& t, const TensorStats& s);

}  // namespace strata::debug
