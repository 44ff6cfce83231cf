// strata's ChannelShuffle (domain "strata"): ShuffleNet's channel shuffle as one op, made by
// src/passes/fuse_channel_shuffle.cpp. With g groups of C/g channels,
//   Y[n, j·g + i, ...] = X[n, i·(C/g) + j, ...]   for i < g, j < C/g,
// what Reshape [N, C, ...] → [N, g, C/g, ...], Transpose (axes 1 and 2 swapped) and Reshape back
// compute.
#pragma once

#include <cstdint>
#include <optional>

#include "ops/op.h"

namespace strata::ops {

// The input channel that output channel `c` of a shuffle of `channels` in `group` groups reads.
inline int64_t shuffled_channel_source(int64_t c, int64_t channels, int64_t group) {
  return c % group * (channels / group) + c / group;
}

// A ChannelShuffle op's group, or nullopt when `op` is not one.
std::optional<int64_t> channel_shuffle_group(const Op& op);

}  // namespace strata::ops
