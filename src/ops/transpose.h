// Transpose's permutation, resolved by the op (src/ops/transpose.cpp) for the fast kernels.
#pragma once

#include <optional>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// The permutation a Transpose op applies to an input of `rank` (the reversal when the attribute
// is absent), or nullopt when `op` is not a Transpose. Fails like the op on a bad permutation.
std::optional<std::vector<int64_t>> transpose_permutation(const Op& op, int64_t rank);

}  // namespace strata::ops
