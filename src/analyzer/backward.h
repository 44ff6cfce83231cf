// Training estimates per op: the FLOPs of its backward pass relative to its forward pass, and what
// it must keep from the forward pass for the backward pass. Conventions: docs/cost-conventions.md.
#pragma once

#include <string_view>

namespace strata::analyzer {

// The forward tensors a node's backward pass reads (parameters are counted separately).
enum class Saves : uint8_t {
  kNothing,           // the gradient needs no forward tensor (Add, Reshape, AveragePool)
  kActivationInputs,  // the non-constant inputs (MatMul, Conv: for the weight gradient; Mul)
  kOutputs,           // the outputs (Relu, Sigmoid, Softmax: the derivative is a function of them)
  kIndexInputs,       // only the non-constant integer/bool inputs (Gather indices, Where mask)
};

struct BackwardRule {
  double flops_factor = 1;  // backward FLOPs = factor × forward FLOPs
  Saves saves = Saves::kActivationInputs;
  bool known = false;  // false: the op has no entry, the defaults above are a guess
};

BackwardRule backward_rule(std::string_view op_type);

}  // namespace strata::analyzer
