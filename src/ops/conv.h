// Conv's attributes, parsed once by the op (src/ops/conv.cpp) and read by the fused op and the
// fast kernels, so no one parses them twice.
#pragma once

#include <memory>

#include "ops/conv_geometry.h"
#include "ops/op.h"

namespace strata::ops {

struct ConvAttributes {
  explicit ConvAttributes(const NodeInfo& node);  // fails naming a bad attribute
  WindowAttrs window;
  int64_t group = 1;
};

// The attributes of a Conv op, or nullptr when `op` is not one.
const ConvAttributes* conv_attributes(const Op& op);

std::unique_ptr<Op> make_conv(const NodeInfo& node);

}  // namespace strata::ops
