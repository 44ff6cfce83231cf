// FusedMatMul (domain "strata"): a MatMul a fusion pass has merged with the nodes after it:
//   Y = activation(alpha * MatMul(A, B) + C + Z)
// Inputs A, B as MatMul; C (optional, e.g. a bias) and Z (optional, e.g. a residual or a mask)
// broadcast one way to Y's shape. Attributes: alpha (float, default 1; a Mul or Div by a constant
// after the MatMul), activation / activation_alpha / activation_beta (src/ops/fused_activation.h).
// The reference kernel runs MatMul's reference kernel, then scales, adds and activates.
#pragma once

#include <optional>

#include "ops/fused_activation.h"
#include "ops/op.h"

namespace strata::ops {

// Input indices of the two addends.
inline constexpr size_t kFusedMatMulBias = 2;
inline constexpr size_t kFusedMatMulResidual = 3;

struct FusedMatMulAttributes {
  float alpha = 1;
  Activation activation;
};

// The attributes of a FusedMatMul op, or nullopt when `op` is not one.
std::optional<FusedMatMulAttributes> fused_matmul_attributes(const Op& op);

}  // namespace strata::ops
