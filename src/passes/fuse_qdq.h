// Quantized graphs as ONNX Runtime's quantizer writes them. QDQ: DequantizeLinear → Conv →
// QuantizeLinear becomes one QLinearConv, DequantizeLinear → MatMul (constant 2-D weights) →
// QuantizeLinear one QLinearMatMul, DequantizeLinear → Gemm → QuantizeLinear strata's QLinearGemm
// (QLinearMatMul with an int32 bias) and a residual add between DequantizeLinear and
// QuantizeLinear strata's QLinearAdd: the int8 kernels run them without leaving integers
// (src/kernels/onednn/qlinear_conv.cpp, matmul_integer.cpp, src/kernels/cpu/qlinear_add.cpp; on
// CPUs without VNNI src/kernels/cpu/int8_conv.cpp and int8_matmul.cpp where oneDNN's would not be
// exact).
// Dynamic: MatMulInteger → Cast → Mul [→ Add] becomes strata's MatMulIntegerToFloat.
#pragma once

#include <cstddef>
#include <string>

#include "ir/graph.h"

namespace strata::passes {

// Returns how many convolutions and products it fused. Runs before fold_constants, which would
// otherwise turn the weights' DequantizeLinear into float constants. Products no int8 kernel
// computes exactly on this CPU stay as the QDQ graph writes them (for convolutions
// kernels::int8_conv_route decides, as it does for the QLinearConv kernels); `left_alone`, when
// given, then gets one line saying how many and why the first ("" when none).
size_t fuse_qdq(ir::Graph& graph, std::string* left_alone = nullptr);

}  // namespace strata::passes
