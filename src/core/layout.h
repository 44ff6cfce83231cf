// How an activation tensor's elements are ordered in memory. Tensors are plain row-major unless a
// fast kernel chose another layout for the values it reads and writes; the session converts
// (reorders) at the boundaries, so reference kernels and the caller only ever see plain tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace strata {

enum class Layout : uint8_t {
  kPlain,         // row-major as the shape reads: NCHW for images ("nchw")
  kChannelsLast,  // channels innermost: NHWC ("nhwc"); same bytes as plain
  kBlocked16,     // channels in blocks of 16, innermost: nChw16c; channels padded to 16
  kBlocked8,      // the same in blocks of 8: nChw8c (oneDNN's convolutions on AVX2)
};

// Channels per block of a blocked layout (16 or 8); 1 for the others.
int64_t channel_block(Layout layout);

// "nchw", "nhwc", "nChw16c", "nChw8c" for rank 4; "nwc"/"nCw16c" and "ndhwc"/"nCdhw16c" for
// ranks 3 and 5; "plain" for plain tensors of other ranks.
std::string layout_name(Layout layout, int64_t rank);

// True when `layout` can hold a tensor of this rank (non-plain layouts need N, C and 1 to 3
// spatial axes).
bool layout_fits(Layout layout, int64_t rank);

// True when a tensor of `shape` has its elements in the same order in both layouts (channels-last
// with one spatial position or one channel; blocked with one spatial position and whole blocks),
// so converting between them is a no-op.
bool same_memory_order(const std::vector<int64_t>& shape, Layout a, Layout b);

// Bytes a tensor of `shape` and `dtype` takes in `layout` (blocked layouts pad channels).
int64_t layout_bytes(DType dtype, const std::vector<int64_t>& shape, Layout layout);

}  // namespace strata
