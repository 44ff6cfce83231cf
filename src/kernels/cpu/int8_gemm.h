// An exact 8-bit matrix product for CPUs without VNNI: C = (A − a_zero) · (B − b_zero), A rows × k
// of uint8 or int8, B k × n of int8 (constant, packed once), C of int32. oneDNN's and ONNX
// Runtime's AVX2 kernels sum pairs of u8 × s8 products in 16 bits with saturation (vpmaddubsw),
// wrong where two products of a pair together pass ±32767. Here vpmaddubsw runs on operands that
// cannot saturate, for B without zero points: where few of B's pairs could saturate, A's whole
// bytes against weights cut to fit, each cut's excess added after (Int8WeightFix); elsewhere A's
// bytes clipped to a range of 129 values around A's zero point (0..128 after a shift), the few
// values outside leaving sparse residuals (1..127 each) multiplied the same way on the last pass,
// a per-column term restoring the shift. B with zero points (9-bit B − b_zero), short k, and calls
// with dense residuals are widened to int16 and summed in 32-bit pairs (vpmaddwd). Exact for any
// values and zero points. AVX2 only (a CPU with VNNI is exact in oneDNN already).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/int8_requantize.h"

namespace strata::kernels::cpu {

// The longest sum the int32 sums hold exactly whatever the 8-bit values and zero points: 33025
// products of 9-bit values (255 · 255 each) stay below 2^31.
constexpr int64_t kInt8GemmMaxK = 33025;

// What is done to the int32 sums before they are stored: nothing, or MatMulIntegerToFloat's
// float(sum) · scale (+ bias), each step rounded in float32 as the reference kernel does it.
struct Int8GemmFloatOutput {
  const float* scale = nullptr;  // one value, or n when scale_per_column
  bool scale_per_column = false;
  const float* bias = nullptr;  // n values, or nullptr
};

// Where B has a pair of weights that could saturate with A's whole bytes (one sign, |w0| + |w1|
// past 128): the larger is cut to 128 − |the other| in the packed weights, and the byte kernel
// adds A's byte at row k times the excess after, for each of a panel's 16 columns (0 elsewhere).
struct Int8WeightFix {
  int32_t k;
  int32_t excess[16];
};

class Int8Gemm {
 public:
  Int8Gemm() = default;
  // b: k × n row-major; b_zero: empty (0), one value, or n values (per column).
  Int8Gemm(const int8_t* b, int64_t k, int64_t n, const std::vector<int32_t>& b_zero);

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  int64_t packed_bytes() const {
    return int64_t(bytes_.size() + column_sums_.size() * sizeof(int32_t) +
                   wide_.size() * sizeof(int16_t) + fixes_.size() * sizeof(Int8WeightFix));
  }
  // Scratch multiply() needs for `rows` rows of A on `threads` threads.
  int64_t scratch_bytes(int64_t rows, int threads) const;
  // Which way this product multiplies, for the kernels' notes.
  std::string method() const;

  // out[r·n + j] = Σ_i (a[r·k + i] − a_zero) · (B[i, j] − b_zero[j]) for r < rows, as int32
  // (float_output == nullptr), else as float32 after float_output's steps. `threads`: OpenMP
  // threads to split the columns among (small products run on one).
  // Returns whether this call took 16-bit pairs for dense residuals (A far from its zero point)
  // where the byte kernel was planned: slower, and data-dependent (Int8GemmCalls counts it).
  bool multiply(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                const Int8GemmFloatOutput* float_output, void* scratch, int threads) const;
  // The same product requantized to 8 bits (the QLinear products) straight from the registers:
  // y[r·n + j] as int8_requantize computes it from the sums. `sums` (rows × n int32) holds the
  // sums between passes when k takes more than one (past 768), and is not touched otherwise.
  bool multiply_requantized(const void* a, bool a_signed, int32_t a_zero, int64_t rows,
                            const Int8Requantization& requantization, void* y, void* sums,
                            void* scratch, int threads) const;

 private:
  bool multiply_into(const void* a, bool a_signed, int32_t a_zero, int64_t rows, void* out,
                     const Int8GemmFloatOutput* float_output,
                     const Int8Requantization* requantization, void* y, void* scratch,
                     int threads) const;

  int64_t k_ = 0, n_ = 0;
  int64_t steps_ = 0;  // quads of k (bytes_), or pairs of k (wide_)
  // B without zero points, panel p: [quads][16 columns][4] int8 (zero past k and n), and each
  // column's sum (16 per panel).
  std::vector<int8_t> bytes_;
  std::vector<int32_t> column_sums_;
  // Whether A's bytes are taken whole (B's few pairs that could saturate fixed after: fixes_,
  // panel p's from fix_at_[p] to fix_at_[p + 1]), else clipped around A's zero point.
  bool weight_fixes_ = false;
  std::vector<Int8WeightFix> fixes_;
  std::vector<int64_t> fix_at_;
  // B with zero points, panel p: [pairs][16 columns][2] of B − b_zero (9 bits) as int16.
  std::vector<int16_t> wide_;
};

// An Int8Gemm's calls in a kernel's runs and how many took 16-bit pairs for dense residuals
// (Int8Gemm::multiply's result), for Kernel::run_note. Counted from any thread.
class Int8GemmCalls {
 public:
  void count(bool dense) {
    calls_.fetch_add(1, std::memory_order_relaxed);
    if (dense) dense_.fetch_add(1, std::memory_order_relaxed);
  }
  // "" when no call fell back.
  std::string note() const;

 private:
  std::atomic<int64_t> calls_{0}, dense_{0};
};

// How Int8Gemm multiplies, for the kernels' reasons (docs/quantization.md has the details).
inline constexpr const char* kInt8GemmMethod =
    "vpmaddubsw on operands that cannot saturate: A's whole bytes with B's few risky pairs fixed "
    "after, or A's bytes clipped around its zero point and its few residuals; 16-bit pairs "
    "(vpmaddwd) where neither pays";

// Whether this CPU runs Int8Gemm (AVX2; within simd_ceiling()).
bool int8_gemm_available();

}  // namespace strata::kernels::cpu
