// Whether oneDNN's int8 convolutions and matmuls compute exactly on this CPU: the fast kernels
// check it before taking an int8 product, and the QDQ fusion before making one.
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

}  // namespace strata::kernels
