// RoiAlign's attributes, parsed once by the op (src/ops/detection.cpp) and read by the fast
// kernel (src/kernels/cpu/roi_align.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct RoiAlignAttributes {
  bool max = false;  // mode "max" (else "avg")
  int64_t output_height = 1, output_width = 1;
  int64_t sampling_ratio = 0;  // 0: adaptive, from each roi's size
  float spatial_scale = 1.0f;
  bool half_pixel = false;  // coordinate_transformation_mode "half_pixel"
};

// The attributes of a RoiAlign op, or nullopt for other ops.
std::optional<RoiAlignAttributes> roi_align_attributes(const Op& op);

}  // namespace strata::ops
