// Parsing a ModelProto without copying its weights: the main graph's initializers are split off,
// each with its raw_data left in the file as a range of bytes; everything else is parsed by the
// generated protobuf classes as usual.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace strata::onnx_import {

struct InitializerSkeleton {
  onnx::TensorProto proto;                   // every field but raw_data
  std::optional<std::string_view> raw_data;  // raw_data's bytes, inside the parsed bytes
};

struct ModelSkeleton {
  onnx::ModelProto model;  // its graph has no initializers: they are below, in file order
  std::vector<InitializerSkeleton> initializers;
};

// Parses `bytes` (a serialized ModelProto, which must outlive the raw_data views). Returns false
// when they are not a well-formed ModelProto (truncated, corrupt, another format).
// `walked_past`, when given, is called with each initializer's bytes once they have been parsed,
// so that a caller that will not read them can release their pages as the walk goes on.
bool parse_model_skeleton(std::string_view bytes, ModelSkeleton& out,
                          const std::function<void(std::string_view)>& walked_past = {});

}  // namespace strata::onnx_import
