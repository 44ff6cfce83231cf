// What the f32 convolution kernels (conv.cpp, grouped_pointwise_conv.cpp) need from a Conv or
// strata's FusedConv: the convolution's attributes and the fused activation.
#pragma once

#include <optional>

#include "ir/graph.h"
#include "ops/fused_conv.h"

namespace strata::kernels::onednn {

struct ConvSetup {
  const ops::ConvAttributes* attrs = nullptr;
  ops::Activation activation;
};

inline std::optional<ConvSetup> conv_setup_of(const ops::Op& op) {
  if (const ops::ConvAttributes* attrs = ops::conv_attributes(op)) return ConvSetup{attrs, {}};
  if (auto fused = ops::fused_conv_attributes(op)) return ConvSetup{fused->conv, fused->activation};
  return std::nullopt;
}

inline bool is_f32_conv_op(const ir::Node& node) {
  return (node.domain.empty() && node.op_type == "Conv") || node.op_type == "FusedConv";
}

}  // namespace strata::kernels::onednn
