// Loading a model for running: parse the file, check every op is supported, infer shapes.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/infer_shapes.h"

namespace strata::runtime {

struct Model {
  ir::Graph graph;
  std::vector<std::string> warnings;
  passes::InferStats shapes;
};

// Fails (exit 2) with one sentence naming the file: unreadable or malformed file, unsupported ops
// (all listed at once with node names and opset), or a shape rule that rejects the model.
Model load_model(const std::string& path);

}  // namespace strata::runtime
