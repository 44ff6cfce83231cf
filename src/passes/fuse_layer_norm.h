// LayerNorm fusion: the normalisation exporters write out op by op over the last axis,
//   d = x - ReduceMean(x);  y = d / Sqrt(ReduceMean(Pow(d, 2)) + eps) * gamma + beta
// (gamma and beta constant), becomes one LayerNormalization node (axis -1), which the fast kernels
// compute in one pass. The new node takes the place of the last node it replaces and lists every
// replaced node in fused_from.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of layer normalisations fused.
size_t fuse_layer_norm(ir::Graph& graph);

}  // namespace strata::passes
