// Tensors written as JSON: nested arrays like [[1, 2], [3, 4]] (the shape comes from the nesting),
// or in a file the object {"dtype": "float32", "shape": [2, 2], "data": [1, 2, 3, 4]}.
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.h"

namespace strata::io {

// Parses nested arrays (or a single scalar) of numbers and bools into a tensor of `dtype`.
// Integer dtypes take integral values in range only; float dtypes also take the strings "nan",
// "inf" and "-inf"; bool takes true/false or numbers (nonzero is true). DType::kUndefined infers
// the dtype like numpy: bool if all values are bools, int64 if all are integers, else float32 (also
// when empty). Errors (invalid JSON, ragged arrays, non-numbers, empty text) name `what` first.
Tensor parse_json_tensor(std::string_view text, DType dtype, const std::string& what);

// Reads a file holding either a bare array/scalar (as above) or an object with "data" (flat or
// nested) and optional "shape" and "dtype" (a name such as "float32"). A declared dtype must match
// `dtype` unless `dtype` is DType::kUndefined. Errors name the path first.
Tensor read_json_tensor(const std::string& path, DType dtype);

}  // namespace strata::io
