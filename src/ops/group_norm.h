// GroupNormalization's attributes, parsed once by the op (src/ops/group_norm.cpp) and read by the
// fast kernel.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct GroupNormAttributes {
  int64_t groups = 1;
  float epsilon = 1e-5f;
  bool per_channel = true;  // scale and bias per channel (opset 21), else per group (opset 18)
};

// The attributes of a GroupNormalization op, or nullopt for other ops.
std::optional<GroupNormAttributes> group_norm_attributes(const Op& op);

}  // namespace strata::ops
