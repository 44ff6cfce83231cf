// Recognises the activation applied to a value, for the fusion passes: one ONNX activation node
// (Relu, LeakyRelu, Clip with constant bounds, Sigmoid, Tanh, Elu, HardSigmoid, HardSwish, Gelu),
// x * Sigmoid(x) (SiLU), x * HardSigmoid(x) with alpha 1/6 and beta 1/2 (hard-swish as torch
// exports it before opset 14), or the exported GELU x * (1 + Erf(x / sqrt 2)) * 0.5.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "ops/fused_activation.h"

namespace strata::passes {

struct ActivationMatch {
  ops::Activation activation;
  std::vector<size_t> nodes;  // the nodes it spans, in graph order
  ir::ValueId output = ir::kNoValue;
};

// The activation whose only input is `value` (every intermediate value read by the pattern alone,
// and none a graph output), or nullopt. Nodes flagged in `dead` never match.
std::optional<ActivationMatch> match_activation(const ir::Graph& graph,
                                                const std::vector<std::vector<size_t>>& readers,
                                                const std::vector<bool>& dead, ir::ValueId value);

}  // namespace strata::passes
