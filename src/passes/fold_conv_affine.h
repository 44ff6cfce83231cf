// Per-channel scale and shift folded into a convolution: a Conv with constant weights (and bias)
// whose output only a Mul or an Add by a constant reads, that constant holding one value per
// output channel (shape [M, 1, ...] or [1, M, 1, ...]) or one value in all, becomes the Conv with
//   W'[m] = W[m] * s[m], B'[m] = B[m] * s[m]   (Mul)      B'[m] = B[m] + t[m]   (Add)
// repeatedly, so a Conv → Mul → Add chain is one Conv. As fold_batch_norm, the Conv then writes
// the last op's output and lists the ops in fused_from. An inference BatchNormalization takes them
// into its scale and B alike (Caffe2's DenseNet writes SpatialBN → Mul → Add → Relu before every
// convolution: one FusedBatchNorm after fuse_batch_norm).
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of Mul and Add nodes folded.
size_t fold_conv_affine(ir::Graph& graph);

}  // namespace strata::passes
