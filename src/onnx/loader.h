// ONNX model file → ir::Graph. The only place (with tensor_proto.cpp) that includes onnx headers.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::onnx_import {

// The ai.onnx opsets whose semantics strata implements.
inline constexpr int64_t kMinOpset = 7;
inline constexpr int64_t kMaxOpset = 21;

// Largest initializer whose data is read when weights are not (analysis): enough for every shape
// operand (Reshape targets, Resize scales, axes), small enough that no weight is read.
inline constexpr int64_t kSmallInitializerBytes = 64 * 1024;

struct LoadOptions {
  // true (running): every initializer's data, as read-only views of the mapped file where aligned.
  // false (analysing): initializers get dtype and shape, but data only when at most
  // kSmallInitializerBytes; a missing external data file is a warning rather than an error.
  bool read_weights = true;
};

struct LoadResult {
  ir::Graph graph;
  std::vector<std::string> warnings;  // e.g. an opset newer than strata knows
};

// Parses, validates and topologically sorts a model. Fails (exit 2) with one sentence naming the
// file and the problem. (Op support and shapes are checked by runtime::load_model.)
LoadResult load_model(const std::string& path, const LoadOptions& options = {});

}  // namespace strata::onnx_import
