// MaxPool / AveragePool attributes, parsed once by the op (src/ops/pool.cpp) and read by the fast
// kernels.
#pragma once

#include <optional>

#include "ops/conv_geometry.h"
#include "ops/op.h"

namespace strata::ops {

struct PoolAttributes {
  bool is_max = false;
  const WindowAttrs* window = nullptr;
  bool count_include_pad = false;  // AveragePool
  bool wants_indices = false;      // MaxPool's optional Indices output is read
};

// The attributes of a MaxPool or AveragePool op, or nullopt for other ops.
std::optional<PoolAttributes> pool_attributes(const Op& op);

}  // namespace strata::ops
