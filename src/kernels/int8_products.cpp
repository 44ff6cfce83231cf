#include "kernels/int8_products.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <vector>

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
