// BatchNormalization's attributes, parsed once by the op (src/ops/batch_norm.cpp) and read by the
// fast kernels.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct BatchNormAttributes {
  float epsilon = 1e-5f;
  // Normalises with the given running statistics, one set per channel, and only Y is declared:
  // y = scale * (x - mean) / sqrt(var + epsilon) + B.
  bool per_channel_inference = false;
};

// The attributes of a BatchNormalization op, or nullopt for other ops.
std::optional<BatchNormAttributes> batch_norm_attributes(const Op& op);

}  // namespace strata::ops
