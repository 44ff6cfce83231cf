// Steps whose shapes are known only while running (after NonZero, in detection heads) get their
// fast kernel chosen then (src/runtime/session.cpp, choose_dynamic_kernel). The kernel is kept
// while the shapes stay the same, so it must not have packed an input that changes between runs.
#include <gtest/gtest.h>

#include "onnx/loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

// y = Gather(x, NonZero(keep)[0]) · w: the MatMul's first input has a run-time row count and its
// weight `w` is a graph input, not a constant.
ir::Graph rows_times_input_weight() {
  ModelBuilder m;
  m.add_input("keep", DType::kBool, {4});
  m.add_input("x", DType::kF32, {4, 2});
  m.add_input("w", DType::kF32, {2, 2});
  m.add_node("NonZero", {"keep"}, {"where"}, "nonzero");
  m.add_node("Squeeze", {"where"}, {"rows"}, "squeeze");
  m.add_node("Gather", {"x", "rows"}, {"kept"}, "gather");
  m.add_node("MatMul", {"kept", "w"}, {"y"}, "matmul");
  m.add_output("y");
  TempDir dir;
  return runtime::load_model(m.save(dir.path("model.onnx"))).graph;
}

TEST(DynamicStep, KernelChosenWhileRunningReadsEachRunsWeight) {
  const ir::Graph g = rows_times_input_weight();
  Tensor keep = Tensor::from<bool>({4}, {true, false, true, false});
  Tensor x = Tensor::from<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor identity = Tensor::from<float>({2, 2}, {1, 0, 0, 1});
  Tensor doubling = Tensor::from<float>({2, 2}, {2, 0, 0, 2});
  for (bool fast : {false, true}) {
    SCOPED_TRACE(fast ? "fast kernels" : "reference kernels");
    runtime::SessionOptions options;
    options.fast_kernels = fast;
    runtime::Session session(g, {{DType::kBool, {4}}, {DType::kF32, {4, 2}}, {DType::kF32, {2, 2}}},
                             options);
    session.run({&keep, &x, &identity});
    EXPECT_EQ(session.output(0).to_double(), (std::vector<double>{1, 2, 5, 6}));
    session.run({&keep, &x, &doubling});  // the same shapes, another weight
    EXPECT_EQ(session.output(0).to_double(), (std::vector<double>{2, 4, 10, 12}));
  }
}

}  // namespace
}  // namespace strata::test
