// Steps whose shapes are known only while running (after NonZero, in detection heads) get their
// fast kernel chosen then (src/runtime/session.cpp, choose_dynamic_kernel). The kernel is kept
// while the shapes stay the same, so it must not have packed an input that changes between runs.
#include <gtest/gtest.h>

#include <cmath>

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

TEST(DynamicStep, KernelChosenWhileRunningReadsEachRunsWeightAndKeptOutputsStay) {
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
    // keep_output hands the dynamic step's buffer over instead of copying it (a Loop keeps its
    // carried values so): the next run, with the same shapes, must write a new one.
    const Tensor kept = session.keep_output(0);
    EXPECT_EQ(kept.raw(), session.output(0).raw());
    session.run({&keep, &x, &doubling});  // the same shapes, another weight
    EXPECT_EQ(session.output(0).to_double(), (std::vector<double>{2, 4, 10, 12}));
    EXPECT_NE(session.output(0).raw(), kept.raw());
    EXPECT_EQ(kept.to_double(), (std::vector<double>{1, 2, 5, 6}));
  }
}

// An output in the arena (static shapes) is copied: the next run writes the same bytes.
TEST(DynamicStep, KeptStaticOutputIsACopy) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  TempDir dir;
  const ir::Graph g = runtime::load_model(m.save(dir.path("model.onnx"))).graph;
  runtime::Session session(g, {{DType::kF32, {2}}}, runtime::SessionOptions{});
  Tensor a = Tensor::from<float>({2}, {1, -1}), b = Tensor::from<float>({2}, {3, 4});
  session.run({&a});
  const Tensor kept = session.keep_output(0);
  EXPECT_NE(kept.raw(), session.output(0).raw());
  session.run({&b});
  EXPECT_EQ(kept.to_double(), (std::vector<double>{1, 0}));
}

// kept = Gather(x, NonZero(keep)) (a run-time row count); s1 = ScatterElements(kept, [[0,0]],
// [[9,9]]) writes row 0; y = ScatterElements(s1, [[1,0]], [[7,8]], axis 1) swaps into row 0.
// With `s1_is_output`, s1 is a graph output too, so y must not take its buffer.
ir::Graph scatter_chain(bool s1_is_output) {
  ModelBuilder m;
  m.add_input("keep", DType::kBool, {4});
  m.add_input("x", DType::kF32, {4, 2});
  m.add_int64_initializer("i1", {1, 2}, {0, 0});
  m.add_initializer("u1", Tensor::from<float>({1, 2}, {9, 9}));
  m.add_int64_initializer("i2", {1, 2}, {1, 0});
  m.add_initializer("u2", Tensor::from<float>({1, 2}, {7, 8}));
  m.add_node("NonZero", {"keep"}, {"where"}, "nonzero");
  m.add_node("Squeeze", {"where"}, {"rows"}, "squeeze");
  m.add_node("Gather", {"x", "rows"}, {"kept"}, "gather");
  m.add_node("ScatterElements", {"kept", "i1", "u1"}, {"s1"}, "scatter1");
  set_attr(m.add_node("ScatterElements", {"s1", "i2", "u2"}, {"y"}, "scatter2"), "axis",
           int64_t(1));
  m.add_output("y");
  if (s1_is_output) m.add_output("s1");
  TempDir dir;
  return runtime::load_model(m.save(dir.path("model.onnx"))).graph;
}

const runtime::StepInfo& step_named(const runtime::Session& session, const std::string& name) {
  for (const runtime::StepInfo& step : session.steps())
    if (session.graph().nodes[step.node_index].name == name) return step;
  throw std::runtime_error("no step " + name);
}

TEST(DynamicStep, ScatterChainWritesInPlaceIntoBuffersNoLaterStepReads) {
  Tensor keep = Tensor::from<bool>({4}, {true, false, true, false});
  Tensor x = Tensor::from<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (bool s1_is_output : {false, true}) {
    SCOPED_TRACE(s1_is_output ? "s1 is a graph output" : "s1 read by scatter2 only");
    const ir::Graph g = scatter_chain(s1_is_output);
    runtime::Session session(g, {{DType::kBool, {4}}, {DType::kF32, {4, 2}}}, {});
    const void* kept = nullptr;          // the buffer Gather made in the first run
    for (int run = 0; run < 2; ++run) {  // the second run reuses the kernels chosen in the first
      session.run({&keep, &x});
      if (run == 0) kept = session.output(0).raw();
      // The chain writes into Gather's buffer; in the second run Gather reuses it, since the
      // chain's outputs let go of it first (unless s1, a graph output, still holds it).
      if (!s1_is_output) {
        EXPECT_EQ(session.output(0).raw(), kept);
      }
      EXPECT_EQ(session.output(0).to_double(), (std::vector<double>{8, 7, 5, 6}));
      if (s1_is_output) {
        EXPECT_EQ(session.output(1).to_double(), (std::vector<double>{9, 9, 5, 6}));
      }
      EXPECT_EQ(step_named(session, "scatter1").kernel, "strata:scatter_elements");
      EXPECT_TRUE(step_named(session, "scatter1").in_place);
      EXPECT_EQ(step_named(session, "scatter2").in_place, !s1_is_output);
    }
    EXPECT_EQ(x.to_double(), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));  // inputs untouched
  }
}

// y = Flatten(Sigmoid(Gather(x, NonZero(keep)))): the element-wise and view steps take a fast
// kernel while running only when their outputs reach 1 MiB (here from 3 kept rows of 360 KB);
// the view then shares Sigmoid's buffer instead of copying it. Fewer rows go back to the
// reference kernels, and every run computes the same values either way.
TEST(DynamicStep, LargeOutputsTakeAFastKernelSmallOnesTheReference) {
  ModelBuilder m;
  m.add_input("keep", DType::kBool, {4});
  m.add_input("x", DType::kF32, {4, 300, 300});
  m.add_node("NonZero", {"keep"}, {"where"}, "nonzero");
  m.add_int64_initializer("axis0", {1}, {0});
  m.add_node("Squeeze", {"where", "axis0"}, {"rows"}, "squeeze");
  m.add_node("Gather", {"x", "rows"}, {"kept"}, "gather");
  m.add_node("Sigmoid", {"kept"}, {"s"}, "sigmoid");
  m.add_node("Flatten", {"s"}, {"y"}, "flatten");
  m.add_output("y");
  TempDir dir;
  const ir::Graph g = runtime::load_model(m.save(dir.path("model.onnx"))).graph;
  Tensor x = Tensor::zeros(DType::kF32, {4, 300, 300});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i % 17) * 0.25f - 2.0f;
  runtime::Session session(g, {{DType::kBool, {4}}, {DType::kF32, {4, 300, 300}}}, {});
  for (int kept_rows : {4, 1, 3}) {
    SCOPED_TRACE(testing::Message() << kept_rows << " rows kept");
    Tensor keep = Tensor::zeros(DType::kBool, {4});
    for (int r = 0; r < kept_rows; ++r) keep.data<bool>()[r] = true;
    session.run({&keep, &x});
    const Tensor& y = session.output(0);
    ASSERT_EQ(y.shape(), (std::vector<int64_t>{kept_rows, 90000}));
    for (int64_t i = 0; i < y.numel(); i += 997) {
      const double v = x.data<float>()[i];
      ASSERT_NEAR(y.data<float>()[i], 1 / (1 + std::exp(-v)), 1e-6) << i;
    }
    const bool large = kept_rows >= 3;
    EXPECT_EQ(step_named(session, "sigmoid").kernel != "reference", large)
        << step_named(session, "sigmoid").reason;
    EXPECT_EQ(step_named(session, "flatten").kernel, large ? "strata:view" : "reference");
    EXPECT_EQ(step_named(session, "flatten").in_place, large);
  }
}

}  // namespace
}  // namespace strata::test
