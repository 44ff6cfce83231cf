// Between the public API's types (include/strata/) and the library's own.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "runtime/input_binding.h"
#include "runtime/session.h"
#include "runtime/verify.h"
#include "strata/compare.h"
#include "strata/model.h"
#include "strata/session.h"
#include "strata/tensor.h"

namespace strata::api {

// A copy in a fresh plain tensor.
Tensor to_tensor(const Array& array);
// A copy of a plain tensor, a string tensor, a sequence or an optional (`what` names it in
// messages).
Array to_array(const Tensor& tensor, const std::string& what);
// The value's declared dtype and shape.
ValueInfo value_info(const ir::Value& value);
// The runtime's binding of `options` (src/api/session.cpp).
runtime::BindOptions bind_options(const InputOptions& options);
// Fails as the command line does for a bad --layout, --max-memory and the like.
runtime::SessionOptions session_options(const SessionOptions& options);
// The runtime's tolerance for `options`.
runtime::Tolerance tolerance(const CompareOptions& options);
// A comparison of the value `value` (node and op_type left empty).
ValueComparison value_comparison(const std::string& value, const runtime::Comparison& c);

}  // namespace strata::api
