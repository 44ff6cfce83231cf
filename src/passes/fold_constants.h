// Constant and shape-computation folding: every node whose outputs are known ahead of time is
// computed once with its reference kernel (all inputs constant and the op deterministic), or by
// its shape rule (Shape, Size of inputs whose shapes are known); its outputs become constants and
// the node goes away.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace strata::passes {

// Largest output a single node may be folded into (bigger ones stay as nodes).
inline constexpr int64_t kMaxFoldedBytes = int64_t(64) << 20;

// Returns the number of nodes folded.
size_t fold_constants(ir::Graph& graph, int64_t max_bytes = kMaxFoldedBytes);

}  // namespace strata::passes
