// ConvTranspose's geometry for concrete shapes, computed by the op (src/ops/conv_transpose.cpp)
// and read by the fast kernel, so that both apply the same pads.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ops/conv_geometry.h"
#include "ops/op.h"

namespace strata::ops {

struct ConvTransposeGeometry {
  // Kernel, strides, dilations as written; pads_begin as applied for these shapes (output_shape
  // and auto_pad resolved). pads_end is left as written: the output size decides the rest.
  Window window;
  int64_t group = 1;
};

// The geometry of a ConvTranspose op for input X, weights W and output Y of these shapes;
// nullopt when `op` is not a ConvTranspose. Fails like the op when the attributes do not fit.
std::optional<ConvTransposeGeometry> conv_transpose_geometry(const Op& op,
                                                             const std::vector<int64_t>& x,
                                                             const std::vector<int64_t>& w,
                                                             const std::vector<int64_t>& y);

std::unique_ptr<Op> make_conv_transpose(const NodeInfo& node);

}  // namespace strata::ops
