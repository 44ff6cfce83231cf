// The registry of ops from ONNX's other domains (src/ops/domain_op_list.inc): ai.onnx.ml and
// ai.onnx.preview.training.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// The factory of `op_type` in `domain`, or nullptr.
OpFactory find_domain_op(std::string_view domain, std::string_view op_type);

// Every (domain, op type) pair implemented, in domain_op_list.inc order.
const std::vector<std::pair<std::string_view, std::string_view>>& supported_domain_ops();

}  // namespace strata::ops
