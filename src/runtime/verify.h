// Comparing outputs with expected tensors, like numpy.testing.assert_allclose.
#pragma once

#include <string>

#include "core/tensor.h"

namespace strata::runtime {

struct Tolerance {
  double rtol = 1e-3;  // the ONNX backend test runner's defaults
  double atol = 1e-7;
  // false: |a - e| <= atol + rtol * |e| per element, as numpy's assert_allclose. true: rtol
  // scales max(|e|, rms(e)), the root mean square of the expected tensor's finite values, so an
  // element that sums terms cancelling to near zero is held to the error its terms carry
  // (inner values of a network: strata compare).
  bool relative_to_tensor = false;
};

struct Comparison {
  bool ok = false;
  std::string problem;  // why it failed: dtype, shape or values ("" when ok)
  double max_abs_error = 0;
  double max_rel_error = 0;
  double cosine = 1;       // cosine similarity of the flattened tensors (1 when both are zero)
  int64_t mismatches = 0;  // elements outside |a - e| <= atol + rtol * |e|
  // Largest distance in units in the last place of the dtype (representable values between the
  // two, float16/bfloat16/float32/float64 bit patterns); |a - e| for integers; NaN and infinite
  // pairs are left out.
  int64_t max_ulp = 0;
  int64_t first_mismatch = -1;
};

// Dtypes and shapes must match exactly; values within tolerance; NaN matches NaN and infinities
// must be equal.
Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tol);

// Representable values of `dtype` between a and b (both finite, both exactly representable in
// `dtype`): 0 when equal, 1 for neighbours; |a - b| for integer dtypes.
int64_t ulp_distance(double a, double b, DType dtype);

}  // namespace strata::runtime
