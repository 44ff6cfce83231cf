// Whether oneDNN's int8 convolutions and matmuls compute exactly on this CPU, and which kernel
// computes an int8 convolution exactly: the fast kernels check it before taking an int8 product,
// and the QDQ fusion before making one.
#pragma once

#include <string>

#include "core/dtype.h"
#include "core/tensor.h"

namespace strata::kernels {

// Why oneDNN's int8 convolutions and matmuls would not compute `weights` (int8, the output
// channels along `output_axis`) exactly on this CPU, or "" when they would. With AVX-512 VNNI the
// uint8 × int8 products are summed in 32 bits. Without it (AVX2, AVX-512 before VNNI) they are
// summed two at a time in 16 bits with saturation (vpmaddubsw), which is exact only when no two
// weights of one sign in an output channel reach 128 together (255 · 128 < 2^15); and int8
// activations take a path that halves the weights. ONNX Runtime's kernels saturate alike there.
// `vnni`: whether the CPU has it (tests ask for both answers on any CPU).
std::string int8_product_problem(const Tensor& weights, int64_t output_axis, DType activations,
                                 bool vnni = __builtin_cpu_supports("avx512vnni"));

// Why strata's exact int8 convolution (src/kernels/cpu/int8_conv.cpp: im2col and the int8 GEMM
// in 16-bit pairs) cannot take a QLinearConv with these [M, C/group, k...] weights here, or ""
// when it can: it needs AVX2, int8 weights, group 1, one or two spatial axes, and sums that fit
// int32 (C · k... ≤ 33025 products of 9-bit values).
std::string exact_int8_conv_problem(const Tensor& weights, int64_t group);

// Why strata's exact int8 depthwise convolution (cpu_int8_depthwise_conv in
// src/kernels/cpu/int8_conv.cpp: each channel's window summed tap by tap in 16-bit pairs) cannot
// take a QLinearConv with these [M, C/group, kh, kw] weights here, or "" when it can: it needs
// AVX2, int8 weights, two spatial axes, a depthwise convolution with channel multiplier 1 (group =
// C = M: weights [C, 1, kh, kw]) and sums that fit int32 (kh · kw ≤ 33025).
std::string exact_int8_depthwise_conv_problem(const Tensor& weights, int64_t group);

// Which kernel computes an int8 convolution exactly on this CPU: the one decision that the QDQ
// fusion (whether to make a QLinearConv) and the three QLinearConv kernel families share.
enum class Int8ConvKernel {
  kOneDnn,          // oneDNN's int8 convolution (VNNI, or weights that cannot saturate)
  kExactGemm,       // strata's exact int8 convolution, where oneDNN's would not be exact
  kExactDepthwise,  // strata's exact int8 depthwise convolution, likewise
  kNone,            // neither: the convolution is best left in float32
};
struct Int8ConvRoute {
  Int8ConvKernel kernel;
  std::string reason;  // kExact…: why not oneDNN; kNone: why none; kOneDnn: ""
};
// `vnni` as for int8_product_problem.
Int8ConvRoute int8_conv_route(const Tensor& weights, int64_t group, DType activations,
                              bool vnni = __builtin_cpu_supports("avx512vnni"));

// Why strata's exact int8 GEMM (src/kernels/cpu/int8_matmul.cpp: MatMulInteger, QLinearMatMul,
// QLinearGemm, MatMulIntegerToFloat) cannot take these 2-D weights (the output columns along
// `output_axis`, the k summed products along the other) here, or "" when it can: AVX2, int8
// weights, 1 ≤ k ≤ 33025 (sums that fit int32). The QDQ fusion asks it before it fuses a MatMul or
// Gemm whose weights oneDNN would saturate, the kernel family before it takes one.
std::string exact_int8_matmul_problem(const Tensor& weights, int64_t output_axis);

}  // namespace strata::kernels
