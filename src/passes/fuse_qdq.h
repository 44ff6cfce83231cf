// Quantized graphs as ONNX Runtime's quantizer writes them (QDQ): DequantizeLinear →
// Conv → QuantizeLinear becomes one QLinearConv, which the int8 kernels run without leaving
// integers (src/kernels/onednn/qlinear_conv.cpp).
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace strata::passes {

// Returns how many convolutions it fused. Runs before fold_constants, which would otherwise turn
// the weights' DequantizeLinear into float constants.
size_t fuse_qdq_conv(ir::Graph& graph);

}  // namespace strata::passes
