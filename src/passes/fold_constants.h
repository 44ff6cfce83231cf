// Constant folding: every node whose inputs are all constant (initializers, Constant outputs,
// folded values) and whose op is deterministic is computed once with its reference kernel; its
// outputs become constants and the node goes away.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace strata::passes {

// Largest output a single node may be folded into (bigger ones stay as nodes).
inline constexpr int64_t kMaxFoldedBytes = int64_t(64) << 20;

// Returns the number of nodes folded.
size_t fold_constants(ir::Graph& graph, int64_t max_bytes = kMaxFoldedBytes);

}  // namespace strata::passes
