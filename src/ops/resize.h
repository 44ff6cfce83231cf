// What a Resize (or Upsample) node reads, for the fast kernel (src/kernels/cpu/resize_nearest.cpp):
// the op decides every coordinate, so both kernels copy the same elements.
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

}  // namespace strata::ops
