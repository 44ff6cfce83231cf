// The registry of strata's internal ops (src/ops/internal_op_list.inc), which graph passes create
// in domain "strata" (e.g. FusedConv for Conv + Add + Relu).
#pragma once

#include <string_view>

#include "ops/op.h"

namespace strata::ops {

inline constexpr std::string_view kStrataDomain = "strata";

// The factory of an internal op type, or nullptr.
OpFactory find_internal_op(std::string_view op_type);

// The factory for a node's op in its domain ("" or "ai.onnx": the ONNX ops; "strata": internal;
// ai.onnx.ml and ai.onnx.preview.training: src/ops/domain_op_list.inc), or nullptr when strata
// does not implement it.
OpFactory find_op_in_domain(std::string_view domain, std::string_view op_type);

}  // namespace strata::ops
