// FusedBatchNorm (domain "strata"): an inference BatchNormalization whose output a fusion pass has
// merged with the activation after it (DenseNet's norm → relu before every convolution):
//   Y = activation(BatchNormalization(X, scale, B, mean, var))
// Inputs and attributes as BatchNormalization, plus activation / activation_alpha /
// activation_beta (src/ops/fused_activation.h). The reference kernel runs BatchNormalization's
// reference kernel, then applies the activation.
#pragma once

#include "ops/batch_norm.h"
#include "ops/fused_activation.h"

namespace strata::ops {

struct FusedBatchNormAttributes {
  BatchNormAttributes norm;
  Activation activation;
};

// The attributes of a FusedBatchNorm op, or nullopt when `op` is not one.
std::optional<FusedBatchNormAttributes> fused_batch_norm_attributes(const Op& op);

}  // namespace strata::ops
