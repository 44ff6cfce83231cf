// What the activation ops of src/ops/activation.cpp compute, as a fused activation
// (src/ops/fused_activation.h), for the fast kernels.
#pragma once

#include <optional>

#include "ops/fused_activation.h"
#include "ops/op.h"

namespace strata::ops {

struct ActivationOfOp {
  Activation activation;
  // Clip from opset 11 reads its bounds from inputs 1 and 2; activation.alpha/beta then hold the
  // bounds that apply when those inputs are absent.
  bool bounds_from_inputs = false;
};

// The activation an Elu, Gelu, HardSigmoid, HardSwish, LeakyRelu or Clip op computes; nullopt for
// other ops (Selu and PRelu have no fused form).
std::optional<ActivationOfOp> activation_of(const Op& op);

}  // namespace strata::ops
