// Gemm's attributes, parsed once by the op (src/ops/gemm.cpp) and read by the fast kernels.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct GemmAttributes {
  bool trans_a = false;
  bool trans_b = false;
  float alpha = 1;
  float beta = 1;
};

// The attributes of a Gemm op, or nullopt for other ops.
std::optional<GemmAttributes> gemm_attributes(const Op& op);

}  // namespace strata::ops
