// MatMul fusion: a float MatMul followed by a Mul or Div by a constant scalar, an Add of a constant
// (a bias), an Add of another tensor (a residual or a mask) and/or an activation
// (src/passes/match_activation.h: including the exported GELU) becomes one FusedMatMul node
// (domain "strata"), computed in one pass by the fast kernels (oneDNN post-ops). Addends must
// broadcast to the product's shape without growing it. The fused node takes the place of the last
// node it replaces and lists every replaced node in fused_from.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of MatMul nodes fused with what follows them.
size_t fuse_matmul(ir::Graph& graph);

}  // namespace strata::passes
