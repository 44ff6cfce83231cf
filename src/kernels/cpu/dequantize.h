// (x - zero_point) · scale from 8-bit values to float32, with the widest loop this CPU runs: the
// Q/DQ kernels' own pass (quantize.cpp), for kernels that read 8-bit data in float32 arithmetic.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace strata::kernels::cpu {

// `type` is DType::kU8 or DType::kI8.
void dequantize_8_bit(DType type, const void* x, float* y, int64_t n, float scale,
                      float zero_point);

}  // namespace strata::kernels::cpu
