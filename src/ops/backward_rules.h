// Reverse-mode rules for the Gradient op (src/ops/gradient.cpp): for one node, the gradients of
// its inputs from the gradient of its output, with broadcasting reduced back to each input's
// shape. Values are held as doubles: the reference kernel favours exactness over speed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace strata::ops {

// A dense row-major array of doubles.
struct Array {
  std::vector<int64_t> shape;
  std::vector<double> data;
};

Array to_array(const Tensor& t);

// True when `op_type` (ai.onnx) has a backward rule; backward_rule_ops() lists them for messages.
bool has_backward_rule(std::string_view op_type);
std::string backward_rule_ops();

// The gradients of the node's inputs, for the inputs marked `wanted` (the others stay empty).
// `inputs` and `output` are the forward values, `dy` the gradient of the output (its shape).
std::vector<std::optional<Array>> backward(std::string_view op_type,
                                           const std::vector<const Array*>& inputs,
                                           const Array& output, const Array& dy,
                                           const std::vector<bool>& wanted);

}  // namespace strata::ops
