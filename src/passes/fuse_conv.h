// Conv fusion: a Conv followed by a residual Add or two-input Sum (of a tensor with the Conv
// output's shape) and/or an activation (src/passes/match_activation.h) becomes one FusedConv node
// (domain "strata"), computed in one pass by the fast kernels (oneDNN post-ops). The fused node
// takes the place of the last node it replaces and lists every replaced node in fused_from.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of Conv nodes fused with what follows them.
size_t fuse_conv(ir::Graph& graph);

}  // namespace strata::passes
