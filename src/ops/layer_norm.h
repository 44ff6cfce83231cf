// LayerNormalization's and RMSNormalization's attributes, parsed once by the op
// (src/ops/layer_norm.cpp) and read by the fast kernels.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct LayerNormAttributes {
  int64_t axis = -1;  // as written (may be negative)
  float epsilon = 1e-5f;
  bool wants_statistics = false;  // the optional Mean or InvStdDev output is read
};

// The attributes of a LayerNormalization op, or nullopt for other ops.
std::optional<LayerNormAttributes> layer_norm_attributes(const Op& op);

struct RmsNormAttributes {
  int64_t axis = -1;  // as written (may be negative)
  float epsilon = 1e-5f;
  DType stash = DType::kF32;  // the precision the statistics are to be kept in
};

// The attributes of an RMSNormalization op, or nullopt for other ops.
std::optional<RmsNormAttributes> rms_norm_attributes(const Op& op);

}  // namespace strata::ops
