// Where a Slice's output elements are in its input, resolved by the op (src/ops/slice.cpp) for the
// fast kernels.
#pragma once

#include <optional>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// The output's shape, the element offset of its first element in a row-major input, and the
// input element stride of each output dim (negative for negative steps).
struct SliceView {
  std::vector<int64_t> shape;
  int64_t offset = 0;
  std::vector<int64_t> strides;
};

// The view a Slice op reads from an input of `in_shape`, with starts/ends/axes/steps taken from
// `ctx` (throws NotStatic when they are not constant); nullopt when `op` is not a Slice.
std::optional<SliceView> slice_view(const Op& op, const InferContext& ctx,
                                    const std::vector<int64_t>& in_shape);

}  // namespace strata::ops
