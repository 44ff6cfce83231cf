// GELU written out by exporters (x * (1 + Erf(x / sqrt 2)) * 0.5, five nodes) where no MatMul or
// Conv before it took it as a fused activation, e.g. after a dynamically quantized MatMul's
// Cast → Mul: one Gelu node, which oneDNN's eltwise runs in one pass instead of five (and Erf on
// the reference kernel).
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace strata::passes {

// Returns how many GELUs it replaced. Runs after fuse_conv and fuse_matmul.
size_t fuse_gelu(ir::Graph& graph);

}  // namespace strata::passes
