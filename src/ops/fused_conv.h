// FusedConv (domain "strata"): a Conv whose output a fusion pass has merged with the nodes after
// it:
//   Y = activation(Conv(X, W, B) + Z)
// Inputs X, W, B (optional) as Conv; Z (optional) a residual of Y's shape and dtype. Attributes:
// Conv's, plus activation / activation_alpha / activation_beta (src/ops/fused_activation.h).
// The reference kernel runs Conv's reference kernel, then adds Z and applies the activation.
#pragma once

#include "ops/conv.h"
#include "ops/fused_activation.h"

namespace strata::ops {

// Input index of the residual Z.
inline constexpr size_t kFusedConvResidual = 3;

struct FusedConvAttributes {
  const ConvAttributes* conv = nullptr;
  Activation activation;
};

// The attributes of a FusedConv op, or nullopt when `op` is not one.
std::optional<FusedConvAttributes> fused_conv_attributes(const Op& op);

}  // namespace strata::ops
