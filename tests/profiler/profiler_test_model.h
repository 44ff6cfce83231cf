// A small model for the profiler's tests: a static part planned in the arena and a Reshape whose
// target is a graph input, so its output is allocated on the heap while running.
//   x [2,3] → MatMul(w [3,2]) "matmul" → Relu "relu" → y
//   x, target int64[2] → Reshape "reshape" → z
#pragma once

#include <vector>

#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/onnx_builder.h"

namespace strata::test {

inline ir::Graph profiler_test_graph() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  m.add_input("target", DType::kI64, {2});
  m.add_initializer("w", Tensor::from<float>({3, 2}, {1, -1, 2, 0, -1, 3}));
  m.add_node("MatMul", {"x", "w"}, {"xw"}, "matmul");
  m.add_node("Relu", {"xw"}, {"y"}, "relu");
  m.add_node("Reshape", {"x", "target"}, {"z"}, "reshape");
  m.add_output("y", DType::kF32, {2, 2});
  m.add_output("z");
  TempDir dir;
  return runtime::load_model(m.save(dir.path("profiled.onnx"))).graph;
}

// The session's inputs, kept alive with it.
struct ProfilerTestSession {
  explicit ProfilerTestSession(runtime::SessionOptions options = {})
      : session(graph, {{DType::kF32, {2, 3}}, {DType::kI64, {2}}}, options) {}

  ir::Graph graph = profiler_test_graph();
  runtime::Session session;
  Tensor x = Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor target = Tensor::from<int64_t>({2}, {3, 2});
  std::vector<const Tensor*> inputs = {&x, &target};

  // y = Relu(x @ w) for the x above.
  static std::vector<float> expected_y() { return {2, 8, 8, 14}; }
  std::vector<float> y() const {
    const Tensor& t = session.output(0);
    return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
  }
};

}  // namespace strata::test
