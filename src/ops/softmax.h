// Softmax / LogSoftmax attributes, parsed once by the op (src/ops/softmax.cpp) and read by the
// fast kernels.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct SoftmaxAttributes {
  bool log = false;        // LogSoftmax
  bool coerce_2d = false;  // before opset 13: normalise over every axis from `axis` on
  int64_t axis = -1;       // as written (may be negative)
};

// The attributes of a Softmax or LogSoftmax op, or nullopt for other ops.
std::optional<SoftmaxAttributes> softmax_attributes(const Op& op);

}  // namespace strata::ops
