// What a Resize (or Upsample) node reads, for the fast kernels (src/kernels/cpu/resize_nearest.cpp,
// resize_linear.cpp): the op decides every coordinate and weight, so the kernels read what the
// reference does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// Per axis of the output: the input index each output coordinate copies, when every output
// element is a copy of one input element (nearest mode, no extrapolated point); nullopt for other
// ops and modes. `ctx` holds the node's inputs (input 0 is read for its shape only) and output.
std::optional<std::vector<std::vector<int64_t>>> resize_copy_sources(const Op& op,
                                                                     const KernelContext& ctx);

// One axis's interpolation: output coordinate x reads input index[x·count + k] with weight
// weight[x·count + k], k < count (1 where the axis is not resized).
struct ResizeTaps {
  int64_t count = 1;
  std::vector<int64_t> index;
  std::vector<double> weight;
};

// Per axis of the output, the taps the reference kernel interpolates with (any mode), when no
// output coordinate falls outside the input (tf_crop_and_resize's extrapolation); nullopt for
// other ops and for extrapolated points.
std::optional<std::vector<ResizeTaps>> resize_taps(const Op& op, const KernelContext& ctx);

}  // namespace strata::ops
