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
  // Per output channel, the two largest magnitudes among its positive and its negative weights:
  // top[c] = {positive largest, second, negative largest, second}. Branch-free loops the
  // compiler vectorizes: sessions ask this of every int8 product's weights several times while
  // preparing (with a branch per weight resnet50_qdq took 1.0 s to prepare, now 0.37).
  std::vector<std::array<int, 4>> top(size_t(channels), {0, 0, 0, 0});
  const int8_t* w = weights.data<int8_t>();
  const int64_t outer = channels * inner > 0 ? weights.numel() / (channels * inner) : 0;
  // The two largest of (a1 ≥ a2) and (b1 ≥ b2), into a.
  const auto merge = [](int* a, int b1, int b2) {
    const int low = std::max(std::min(a[0], b1), std::max(a[1], b2));
    a[0] = std::max(a[0], b1);
    a[1] = low;
  };
  if (inner == 1) {  // a matmul's [k, n]: one row of every channel at a time
    std::vector<int> p1(size_t(channels), 0), p2(size_t(channels), 0), n1(size_t(channels), 0),
        n2(size_t(channels), 0);
    for (int64_t o = 0; o < outer; ++o) {
      const int8_t* row = w + o * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const int positive = std::max(int(row[c]), 0), negative = std::max(-int(row[c]), 0);
        p2[size_t(c)] = std::max(p2[size_t(c)], std::min(p1[size_t(c)], positive));
        p1[size_t(c)] = std::max(p1[size_t(c)], positive);
        n2[size_t(c)] = std::max(n2[size_t(c)], std::min(n1[size_t(c)], negative));
        n1[size_t(c)] = std::max(n1[size_t(c)], negative);
      }
    }
    for (int64_t c = 0; c < channels; ++c)
      top[size_t(c)] = {p1[size_t(c)], p2[size_t(c)], n1[size_t(c)], n2[size_t(c)]};
  } else {  // a convolution's [M, C, k...]: a block of `inner` weights per channel
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c) {
        const int8_t* block = w + (o * channels + c) * inner;
        int p1 = 0, n1 = 0;
        for (int64_t i = 0; i < inner; ++i) {
          p1 = std::max(p1, int(block[i]));
          n1 = std::max(n1, -int(block[i]));
        }
        // The second largest: the largest again if it occurs twice, else the largest below it.
        int p2 = 0, n2 = 0, p_count = 0, n_count = 0;
        for (int64_t i = 0; i < inner; ++i) {
          const int v = block[i];
          p_count += v == p1;
          n_count += -v == n1;
          p2 = std::max(p2, v < p1 ? v : 0);
          n2 = std::max(n2, -v < n1 ? -v : 0);
        }
        std::array<int, 4>& t = top[size_t(c)];
        merge(&t[0], p1, p_count >= 2 ? p1 : p2);
        merge(&t[2], n1, n_count >= 2 ? n1 : n2);
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

namespace {

// What every exact int8 kernel needs: AVX2, int8 weights, and 1 to 33025 products summed per
// output (the reference sums in int64 or double; the kernels' int32 hold any sum of up to 33025
// products of 9-bit values, 255 · 255 each).
std::string exact_int8_weights_problem(const Tensor& weights, int64_t products) {
  if (!cpu::int8_gemm_available()) return "needs AVX2 (beyond this CPU or the SIMD ceiling)";
  if (weights.dtype() != DType::kI8) return "its weights are uint8; int8 weights only";
  if (products == 0) return "the weights are empty: no products to sum";
  if (products > cpu::kInt8GemmMaxK)
    return fmt::format("sums {} products per output, past {}: they could pass int32", products,
                       cpu::kInt8GemmMaxK);
  return "";
}

// The products one output sums: a convolution's weights [M, C/group, k...] per output channel.
int64_t products_per_channel(const Tensor& weights) {
  return weights.rank() > 0 && weights.dim(0) > 0 ? weights.numel() / weights.dim(0) : 0;
}

}  // namespace

std::string exact_int8_conv_problem(const Tensor& weights, int64_t group) {
  if (group != 1)
    return fmt::format("takes group 1 only (this convolution has {} groups: depthwise or grouped)",
                       group);
  if (weights.rank() != 3 && weights.rank() != 4) return "takes one or two spatial axes only";
  return exact_int8_weights_problem(weights, products_per_channel(weights));
}

std::string exact_int8_depthwise_conv_problem(const Tensor& weights, int64_t group) {
  if (weights.rank() != 4) return "takes two spatial axes only";
  if (group <= 1 || weights.dim(0) != group || weights.dim(1) != 1)
    return fmt::format(
        "takes depthwise convolutions with one output channel per group only (this one has {} "
        "groups of {} input and {} output channels)",
        group, weights.dim(1), group > 0 ? weights.dim(0) / group : 0);
  return exact_int8_weights_problem(weights, products_per_channel(weights));
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
  if (group == 1)
    return {Int8ConvKernel::kNone, problem + "; strata's exact int8 convolution " + exact};
  const std::string depthwise = exact_int8_depthwise_conv_problem(weights, group);
  if (depthwise.empty()) return {Int8ConvKernel::kExactDepthwise, std::move(problem)};
  return {Int8ConvKernel::kNone, problem + "; strata's exact int8 convolution " + exact +
                                     ", and its exact int8 depthwise convolution " + depthwise};
}

std::string exact_int8_matmul_problem(const Tensor& weights, int64_t output_axis) {
  if (weights.rank() != 2) return "its weights are not 2-D";
  return exact_int8_weights_problem(weights, weights.dim(output_axis == 0 ? 1 : 0));
}

}  // namespace strata::kernels
