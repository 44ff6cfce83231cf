// GridSample's attributes, parsed once by the op (src/ops/grid_sample.cpp) and read by the fast
// kernel.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

enum class GridSampleMode { kLinear, kNearest, kCubic };
enum class GridSamplePadding { kZeros, kBorder, kReflection };

struct GridSampleAttributes {
  GridSampleMode mode = GridSampleMode::kLinear;
  GridSamplePadding padding = GridSamplePadding::kZeros;
  bool align_corners = false;
};

// The attributes of a GridSample op, or nullopt for other ops.
std::optional<GridSampleAttributes> grid_sample_attributes(const Op& op);

}  // namespace strata::ops
