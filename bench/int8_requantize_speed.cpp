// The exact int8 GEMM's requantization in float32 against the same in double
// (docs/quantization.md, "The exact requantization"), in one process on the same operands: the
// products of mobilenet_v2_qdq's 1×1 convolutions (rows = output pixels, k input channels, n
// output channels), requantized to uint8 both ways in alternation, and each way's minimum time.
// Usage: build/bench_int8_requantize [repetitions]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <vector>

#include "kernels/cpu/int8_gemm.h"

namespace {

using strata::kernels::cpu::Int8Gemm;
using strata::kernels::cpu::Int8Requantization;
using strata::kernels::cpu::Int8RequantizationValues;

struct Shape {
  int64_t rows, k, n;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (!strata::kernels::cpu::int8_gemm_available()) {
    fmt::print("this CPU has no AVX2: the exact int8 GEMM does not run\n");
    return 0;
  }
  const int repetitions = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const Shape shapes[] = {{12544, 16, 96}, {3136, 24, 144}, {12544, 32, 16},
                          {784, 32, 192},  {3136, 144, 24}, {196, 576, 96}};
  std::mt19937 rng(1);
  fmt::print(
      "| rows × k × n | double ms | float32 ms | float32 ÷ double |\n|---|---:|---:|---:|\n");
  for (const Shape& s : shapes) {
    // Weights as calibrated per-channel ones spread; activations around their zero point.
    std::normal_distribution<float> weight(0, 40), activation(128, 10);
    std::vector<int8_t> b(static_cast<size_t>(s.k * s.n));
    for (int8_t& v : b) v = int8_t(std::clamp(weight(rng), -127.0f, 127.0f));
    std::vector<uint8_t> a(static_cast<size_t>(s.rows * s.k));
    for (uint8_t& v : a) v = uint8_t(std::clamp(activation(rng), 0.0f, 255.0f));
    const Int8Gemm gemm(b.data(), s.k, s.n, {});
    const std::vector<float> multipliers(static_cast<size_t>(s.n), 0.0007f);
    const std::vector<int32_t> bias(static_cast<size_t>(s.n), 100);
    const Int8RequantizationValues in_float(multipliers, bias, 3, false, double(s.k) * 255 * 255);
    // The same values with a bound on the sums that rules the float32 path out.
    const Int8RequantizationValues in_double(multipliers, bias, 3, false, 1e10);
    const Int8Requantization ways[2] = {in_double.get(), in_float.get()};
    std::vector<int32_t> sums(static_cast<size_t>(s.rows * s.n));
    std::vector<uint8_t> y[2] = {std::vector<uint8_t>(sums.size()),
                                 std::vector<uint8_t>(sums.size())};
    std::vector<char> scratch(static_cast<size_t>(gemm.scratch_bytes(s.rows, 1)));
    double best[2] = {1e9, 1e9};
    for (int r = 0; r < repetitions; ++r)
      for (int way = 0; way < 2; ++way) {
        const auto start = std::chrono::steady_clock::now();
        gemm.multiply_requantized(a.data(), false, 128, s.rows, ways[way], y[way].data(),
                                  sums.data(), scratch.data(), 1);
        best[way] = std::min(best[way], seconds_since(start));
      }
    if (y[0] != y[1]) {
      fmt::print("the two ways differ on {}×{}×{}\n", s.rows, s.k, s.n);
      return 1;
    }
    fmt::print("| {}×{}×{} | {:.3f} | {:.3f} | {:.2f} |\n", s.rows, s.k, s.n, best[0] * 1e3,
               best[1] * 1e3, best[1] / best[0]);
  }
  return 0;
}
