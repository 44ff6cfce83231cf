// BatchNorm folding: an inference-mode BatchNormalization whose input is a Conv's output (read by
// nothing else), with constant statistics and constant Conv weights, is folded into the Conv:
//   W'[m] = W[m] * s[m],  B'[m] = (B[m] - mean[m]) * s[m] + bias[m],  s = scale / sqrt(var + eps).
// The Conv then writes the BatchNormalization's output and lists both nodes in fused_from.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of BatchNormalization nodes folded.
size_t fold_batch_norm(ir::Graph& graph);

}  // namespace strata::passes
