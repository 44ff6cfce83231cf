// Products of a few rows with a constant matrix, for the per-step work of the recurrent kernels:
// out[r, :] += a[r, :] · Wᵀ for up to a few rows at a time, W packed once in panels of 16 output
// columns so that each step streams the weights contiguously (AVX-512, or AVX2 and FMA; the
// matrix–vector product of a batch-1 recurrence, which general GEMM libraries run far below peak).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/simd.h"

namespace strata::kernels::cpu {

class PanelMatrix {
 public:
  PanelMatrix() = default;
  // W is [outputs, inputs] row-major: row m holds output m's weights (ONNX's W and R per gate).
  PanelMatrix(const float* w, int64_t outputs, int64_t inputs);

  int64_t outputs() const { return outputs_; }
  int64_t inputs() const { return inputs_; }
  int64_t bytes() const { return int64_t(panels_.size() * sizeof(float)); }

  // out[r·ldo + m] += Σ_k a[r·lda + k] · W[m, k] for r < rows and every output m.
  void multiply_add(const float* a, int64_t lda, int64_t rows, float* out, int64_t ldo) const;

 private:
  int64_t outputs_ = 0, inputs_ = 0;
  Simd simd_ = Simd::kScalar;  // the instruction set when packed
  std::vector<float> panels_;  // panel p: [inputs][16], columns 16p.. (zero past the end)
};

// Whether this CPU runs the panel products (AVX-512, or AVX2 and FMA; within simd_ceiling()).
bool panel_product_available();

}  // namespace strata::kernels::cpu
