// Ops on string tensors (src/ops/string_ops.cpp). A string tensor is an array of std::string
// (Tensor::zeros allocates it; its nbytes() is 0), so it never lives in the session's arena and
// only the ops listed here may read or write one; the session refuses any other op given one.
#pragma once

#include <string_view>

namespace strata::ops {

bool handles_strings(std::string_view op_type);

}  // namespace strata::ops
