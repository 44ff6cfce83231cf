// RoiAlign's attributes, parsed once by the op (src/ops/detection.cpp) and read by the fast
// kernel (src/kernels/cpu/roi_align.cpp).
#pragma once

#include <algorithm>
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

// The four corners of RoiAlign's bilinear sample at (y, x) in a height × width plane: their
// offsets in the plane and their weights, as the reference kernel and the fast one both take
// them. False (nothing to add) when the sample lies outside the image.
inline bool bilinear_corners(int64_t height, int64_t width, float y, float x, int64_t offset[4],
                             float weight[4]) {
  if (y < -1.0f || y > float(height) || x < -1.0f || x > float(width)) return false;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  int64_t y0 = int64_t(y), x0 = int64_t(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= height - 1) {
    y0 = y1 = height - 1;
    y = float(y0);
  }
  if (x0 >= width - 1) {
    x0 = x1 = width - 1;
    x = float(x0);
  }
  const float ly = y - float(y0), lx = x - float(x0), hy = 1 - ly, hx = 1 - lx;
  offset[0] = y0 * width + x0;
  offset[1] = y0 * width + x1;
  offset[2] = y1 * width + x0;
  offset[3] = y1 * width + x1;
  weight[0] = hy * hx;
  weight[1] = hy * lx;
  weight[2] = ly * hx;
  weight[3] = ly * lx;
  return true;
}

}  // namespace strata::ops
