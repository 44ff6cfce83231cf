// Transposes out of the way of convolutions, for graphs written channels-last (Keras/TF exports:
// Transpose → Conv → Transpose around every convolution, with bias, scale and activations applied
// on the channels-last tensor in between). Two rewrites, repeated until neither applies:
//   - an element-wise op reading a Transpose's output (its only reader) moves before it: unary
//     activations as they are, Add/Sub/Mul/Div whose other operand is a constant with at most one
//     dimension above 1 with that constant reshaped to the Transpose's input order;
//   - a Transpose of a Transpose whose permutations undo each other is bypassed: its readers read
//     the first one's input.
// The convolution then has its scale, shift and activation right after it, where
// fold_conv_affine and fuse_conv take them, and the Transposes between convolutions vanish.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of ops moved plus Transposes bypassed.
size_t sink_transposes(ir::Graph& graph);

}  // namespace strata::passes
