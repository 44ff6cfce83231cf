// What the quantized products (QLinearMatMul, QLinearConv) share: the scales' check and the
// requantization of an exact integer sum, as ONNX's reference does it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace strata::ops {

// Fails unless every scale is positive and finite, naming the input.
inline void check_scales(const std::vector<double>& scales, std::string_view name) {
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s))
      fail("{} holds {}; scales must be positive and finite", name, s);
}

// saturate(round_half_even(sum · multiplier) + zero_point) in Q, the multiplier float32's
// (a_scale · b_scale / y_scale) applied in double.
template <class Q>
Q requantize(double sum, float multiplier, double zero_point) {
  const double v = std::nearbyint(sum * double(multiplier)) + zero_point;
  return Q(std::clamp(v, double(std::numeric_limits<Q>::lowest()),
                      double(std::numeric_limits<Q>::max())));
}

}  // namespace strata::ops
