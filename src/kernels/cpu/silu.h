// SiLU (x * sigmoid(x)) over a float buffer, in place, vectorised with AVX-512 where the CPU has
// it: the activation strata runs after a oneDNN convolution instead of oneDNN 2.6's swish
// post-op, which costs about twice as much per element (docs/kernels.md).
#pragma once

#include <cstdint>

namespace strata::kernels::cpu {

// Replaces each of the n values x by x / (1 + exp(-x)), within 1e-6 of it relatively (the
// exponential is a polynomial), or by 0 below x = -87 (the exact value is under 1e-35 in
// magnitude). Splits large buffers among OpenMP's current threads.
void silu_in_place(float* data, int64_t n);

// Whether this CPU runs the pass vectorised (AVX-512); without, it is scalar code, slower than
// oneDNN's own post-op.
bool silu_is_vectorised();

}  // namespace strata::kernels::cpu
