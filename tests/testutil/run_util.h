// Runtime test helpers: loading a builder-made model the way the CLI does, and reading a float32
// tensor's values back.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"
#include "runtime/model.h"
#include "testutil/onnx_builder.h"

namespace strata::test {

// Loads like the CLI does: parse, check op support, infer shapes.
inline ir::Graph load_graph(const ModelBuilder& m) {
  TempDir dir;
  return runtime::load_model(m.save(dir.path("model.onnx"))).graph;
}

// The values of a float32 tensor.
inline std::vector<float> floats_of(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::kF32);
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

}  // namespace strata::test
