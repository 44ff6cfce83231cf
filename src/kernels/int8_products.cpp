#include "kernels/int8_products.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

#include "kernels/cpu/int8_gemm.h"

namespace strata::kernels {

std::string int8_product_problem(const Tensor& weights, int64_t output_axis, DType activations,
                                 bool vnni) {
  if (vnni) return "";
  if (activations != DType::kU8)
    return "this CPU has no VNNI: oneDNN's int8 kernels halve the weights for int8 activations";
  const std::vector<int64_t>& dims = weights.shape();
  const int64_t channels = dims[size_t(output_axis)];
  int64_t inner = 1;
  for (size_t d = size_t(output_axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  // Per output channel, the two largest magnitudes among its positive and its negative weights.
  std::vector<std::array<int, 4>> top(size_t(channels), {0, 0, 0, 0});
  const int8_t* w = weights.data<int8_t>();
  for (int64_t i = 0; i < weights.numel(); ++i) {
    std::array<int, 4>& t = top[size_t(i / inner % channels)];
    const int magnitude = std::abs(int(w[i]));
    int* pair = w[i] >= 0 ? &t[0] : &t[2];
    if (magnitude > pair[0]) {
      pair[1] = pair[0];
      pair[0] = magnitude;
    } else if (magnitude > pair[1]) {
      pair[1] = magnitude;
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    const std::array<int, 4>& t = top[size_t(c)];
    const int worst = std::max(t[0] + t[1], t[2] + t[3]);
    if (worst > 128)
      return fmt::format(
          "this CPU has no VNNI: oneDNN's int8 kernels sum pairs of products in 16 bits, which "
          "these weights overflow (two of output channel {} reach {} > 128 together)",
          c, worst);
  }
  return "";
}

}  // namespace strata::kernels

namespace strata::kernels {

std::string exact_int8_conv_problem(const Tensor& weights, int64_t group) {
  if (!cpu::int8_gemm_available()) return "needs AVX2 (beyond this CPU or the SIMD ceiling)";
  if (weights.dtype() != DType::kI8) return "its weights are uint8; int8 weights only";
  if (group != 1)
    return fmt::format("takes group 1 only (this convolution has {} groups: depthwise or grouped)",
                       group);
  if (weights.rank() != 3 && weights.rank() != 4) return "takes one or two spatial axes only";
  if (weights.dim(0) == 0 || weights.numel() == 0) return "the weights are empty";
  // The reference sums in double; the GEMM's int32 hold any sum of up to 33025 products of 9-bit
  // values (255 · 255 each).
  if (weights.numel() / weights.dim(0) > cpu::kInt8GemmMaxK)
    return fmt::format("sums {} products per output, past {}: they could pass int32",
                       weights.numel() / weights.dim(0), cpu::kInt8GemmMaxK);
  return "";
}

Int8ConvRoute int8_conv_route(const Tensor& weights, int64_t group, DType activations, bool vnni) {
  if (weights.dtype() != DType::kI8)
    return {Int8ConvKernel::kNone,
            "its weights are uint8 (oneDNN's int8 kernels and strata's exact int8 convolution take "
            "int8 weights)"};
  std::string problem = int8_product_problem(weights, 0, activations, vnni);
  if (problem.empty()) return {Int8ConvKernel::kOneDnn, ""};
  const std::string exact = exact_int8_conv_problem(weights, group);
  if (exact.empty()) return {Int8ConvKernel::kExactGemm, std::move(problem)};
  return {Int8ConvKernel::kNone, problem + "; strata's exact int8 convolution " + exact};
}

}  // namespace strata::kernels
