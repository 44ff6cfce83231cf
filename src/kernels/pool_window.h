// The window a pooling node applies, as the fast pooling kernels (oneDNN's and strata's own)
// take it: the pads resolved for the input's shape, the end pad grown so that the last output's
// window fits (ceil_mode).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"

namespace strata::kernels {

bool is_global_pool(const ir::Node& node);

struct PoolWindow {
  // Per spatial axis; dilations as oneDNN counts them (0: none).
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;
  bool grown = false;  // ceil_mode added end padding beyond the written pads
};

// The window of a MaxPool, AveragePool or global pool node at the request's shapes.
PoolWindow pool_window_of(const NodeRequest& r);

// Why the fast kernels cannot run the window as oneDNN's pooling does, or "": a MaxPool's
// Indices output, ceil_mode average pooling (ONNX counts the grown window's elements
// differently) and pads as large as the window (windows without input).
std::string pool_window_problem(const NodeRequest& r);

}  // namespace strata::kernels
