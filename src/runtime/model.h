// Loading a model to run or analyse it: parse the file, check every op is supported, infer shapes.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "onnx/loader.h"
#include "passes/infer_shapes.h"

namespace strata::runtime {

struct Model {
  ir::Graph graph;
  std::vector<std::string> warnings;
  passes::InferStats shapes;
};

using onnx_import::LoadOptions;

// Fails (exit 2) with one sentence naming the file: unreadable or malformed file, unsupported ops
// (all listed at once with node names and opset), or a shape rule that rejects the model.
// `options.read_weights = false` loads for analysis: large initializers keep dtype and shape only
// (Value::constant null, Value::is_initializer set); such a model cannot be run.
Model load_model(const std::string& path, const LoadOptions& options = {});

}  // namespace strata::runtime
