// Numpy-style broadcasting for reference kernels: walk an output shape while reading
// inputs whose shapes broadcast to it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::ops {

// Element strides for reading a contiguous tensor of shape `in` as if broadcast to `out`:
// right-aligned, 0 on broadcast (size-1 or missing) dims.
std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& in,
                                       const std::vector<int64_t>& out);

// Calls f(out_index, offsets) for every element of `out_shape` in row-major order, where
// offsets[k] is the element offset into input k (read through strides[k]).
template <size_t K, class F>
void for_each_broadcast(const std::vector<int64_t>& out_shape,
                        const std::array<std::vector<int64_t>, K>& strides, F&& f) {
  const size_t rank = out_shape.size();
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  if (total == 0) return;
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, K> offsets{};
  for (int64_t i = 0; i < total; ++i) {
    f(i, offsets);
    for (size_t d = rank; d-- > 0;) {  // odometer increment, updating offsets incrementally
      if (++index[d] < out_shape[d]) {
        for (size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * (out_shape[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace strata::ops
