// BatchNormalization + activation fusion: an inference BatchNormalization that fold_batch_norm
// could not fold (no Conv before it: DenseNet's norm → relu → conv) and whose output only an
// activation reads becomes one strata::FusedBatchNorm, which oneDNN runs in one pass (ReLU as its
// fused flag, others right after in place).
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of FusedBatchNorm nodes made.
size_t fuse_batch_norm(ir::Graph& graph);

}  // namespace strata::passes
