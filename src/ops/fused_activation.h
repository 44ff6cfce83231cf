// The activation a fusion pass folds into a FusedConv or FusedMatMul node, written on the node as
// attributes: activation (the op it replaced: "Relu", "Clip", "Silu" for x*Sigmoid(x), ...),
// activation_alpha and activation_beta (its parameters). The scalar formula here is the reference
// the fused nodes' reference kernels apply and fast kernels map onto their own post-ops.
#pragma once

#include <string>

#include "ir/graph.h"
#include "ops/op.h"

namespace strata::ops {

enum class ActivationKind {
  kNone,
  kRelu,
  kLeakyRelu,  // alpha: slope below zero
  kClip,       // alpha: min, beta: max
  kSigmoid,
  kTanh,
  kSilu,         // x * sigmoid(x)
  kGelu,         // x * (1 + erf(x / sqrt 2)) / 2
  kGeluTanh,     // Gelu with the tanh approximation
  kElu,          // alpha
  kHardSigmoid,  // max(0, min(1, alpha * x + beta))
  kHardSwish,    // x * max(0, min(1, x / 6 + 1 / 2))
};

struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float alpha = 0;
  float beta = 0;
};

// The activation's name as written in the attribute ("" for none).
const char* activation_name(ActivationKind kind);
// The attributes of a fused node; fails naming the attribute when unknown.
Activation parse_activation(const NodeInfo& node);
// Writes the attributes onto a fused node (passes).
void set_activation(ir::Node& node, const Activation& activation);
// The activation applied to one value, computed in double.
double apply_activation(const Activation& activation, double x);
// FLOPs per element, as the cost conventions count the op it replaced.
double activation_flops(ActivationKind kind);
// Applies the activation in place to a float tensor of any float dtype.
void apply_activation(const Activation& activation, Tensor& t);

}  // namespace strata::ops
