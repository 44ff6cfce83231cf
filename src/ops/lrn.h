// LRN's attributes, parsed once by the op (src/ops/lrn.cpp) and read by the fast kernels.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct LrnAttributes {
  int64_t size = 1;  // channels in the window
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
};

// The attributes of an LRN op, or nullopt for other ops.
std::optional<LrnAttributes> lrn_attributes(const Op& op);

}  // namespace strata::ops
