// Warnings for steps on reference implementations (src/profiler/slow_paths.cpp): the share
// threshold, what counts as a reference implementation, and the order; and the one for steps
// whose kernels took a slower way on the input (Kernel::run_note).
#include "profiler/slow_paths.h"

#include <gtest/gtest.h>

#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using profiler::StepTime;

TEST(SlowPaths, ReferenceImplementationsAreRecognisedByName) {
  EXPECT_TRUE(profiler::is_reference_kernel("reference"));
  EXPECT_TRUE(profiler::is_reference_kernel("onednn:ref:any"));
  EXPECT_TRUE(profiler::is_reference_kernel("onednn:ref_fused_convolution:any"));
  EXPECT_FALSE(profiler::is_reference_kernel("onednn:brg:avx512_core"));
  EXPECT_FALSE(profiler::is_reference_kernel("onednn:simple_layer_normalization:any"));
  EXPECT_FALSE(profiler::is_reference_kernel("strata:view"));
}

TEST(SlowPaths, OnlyReferenceStepsAboveTheShareAreNamedSlowestFirst) {
  const std::vector<StepTime> steps = {
      {"small", "Where", "reference", "no fast kernel serves this op", 4.9, ""},
      {"fast", "MatMul", "onednn:brg:avx512_core", "f32 matrix product", 60, ""},
      {"scores", "FusedMatMul", "onednn:ref:any", "f32 matrix product", 10, ""},
      {"einsum", "Einsum", "reference", "the op's reference kernel (no fast kernel serves this op)",
       25, ""},
      {"asked", "Conv", "reference", runtime::kFastKernelsOffReason, 50, ""},
  };
  const std::vector<std::string> w = profiler::slow_path_warnings(steps, 100);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "node 'einsum' (Einsum) runs on the op's reference kernel and takes 25.0% of the run "
            "(25.000 ms): the op's reference kernel (no fast kernel serves this op)");
  EXPECT_NE(w[1].find("node 'scores' (FusedMatMul)"), std::string::npos) << w[1];
  EXPECT_NE(w[1].find("runs on onednn:ref:any (a reference implementation)"), std::string::npos)
      << w[1];
  EXPECT_TRUE(profiler::slow_path_warnings(steps, 0).empty());
}

// Many small steps of one op type on one reference kernel are one warning when they take over
// the share together (MaxViT's Einsums); a lone small step, or a type whose steps stay under the
// share together, is not named.
TEST(SlowPaths, SmallReferenceStepsOfOneTypeAreOneWarningTogether) {
  std::vector<StepTime> steps;
  for (int i = 0; i < 6; ++i)
    steps.push_back(
        {"e" + std::to_string(i), "Einsum", "reference", "no fast kernel", 1.5 + i * 0.1, ""});
  steps.push_back({"w0", "Where", "reference", "no fast kernel", 2, ""});
  steps.push_back({"w1", "Where", "reference", "no fast kernel", 2, ""});
  steps.push_back({"lone", "Erf", "reference", "no fast kernel", 4, ""});
  steps.push_back({"ref", "Einsum", "onednn:ref:any", "other kernel", 3, ""});
  steps.push_back({"fast", "MatMul", "onednn:brg:avx512_core", "f32 matrix product", 70, ""});
  const std::vector<std::string> w = profiler::slow_path_warnings(steps, 100);
  ASSERT_EQ(w.size(), 1u) << (w.size() > 1 ? w[1] : "");
  EXPECT_EQ(w[0],
            "6 Einsum nodes run on the op's reference kernel and take 10.5% of the run together "
            "(10.500 ms; the largest, 'e5', 2.000 ms): no fast kernel");
}

TEST(SlowPaths, StepsThatTookASlowerWayOnThisInputAreOneWarning) {
  const std::string note = "16-bit pairs on 2 of 2 calls: ...";
  const std::vector<StepTime> steps = {
      {"a", "QLinearConv", "cpu:int8_conv:avx2", "exact", 2, note},
      {"b", "QLinearConv", "cpu:int8_conv:avx2", "exact", 30, ""},
      {"c", "QLinearMatMul", "cpu:int8_gemm:avx2", "exact", 8, note},
  };
  std::vector<std::string> w = profiler::slow_path_warnings(steps, 100);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "2 steps took a slower way on this input (10.0% of the run): 'c' (QLinearMatMul): "
            "16-bit pairs on 2 of 2 calls: ...; and 1 more");
  // Untimed (strata run without a reference step): no share.
  w = profiler::slow_path_warnings({{"a", "QLinearConv", "k", "r", -1, note}}, 0);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "1 step took a slower way on this input: 'a' (QLinearConv): " + note);
}

TEST(SlowPaths, ProfileNodesAreJudgedByTheirMedianAgainstTheWholeRun) {
  profiler::Profile p;
  p.iterations_ms = {10, 11, 10};
  profiler::NodeProfile big;
  big.name = "big";
  big.op_type = "Einsum";
  big.kernel = "reference";
  big.samples_ms = {3, 50, 3};  // median 3 of 10: 30%
  profiler::NodeProfile small = big;
  small.name = "small";
  small.samples_ms = {0.1, 0.1, 9};  // median 0.1: 1%, whatever its outlier
  p.nodes = {big, small};
  const std::vector<std::string> w = profiler::slow_path_warnings(p);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("node 'big' (Einsum)"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("30.0% of the run"), std::string::npos) << w[0];
}

// x [n,n] → Einsum ij,jk->ik (reference kernel: n³ multiply-adds) → Relu (fast) → y.
ir::Graph einsum_then_relu(int64_t n) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {n, n});
  set_attr(m.add_node("Einsum", {"x", "x"}, {"xx"}, "einsum"), "equation",
           std::string("ij,jk->ik"));
  m.add_node("Relu", {"xx"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {n, n});
  TempDir dir;
  return runtime::load_model(m.save(dir.path("einsum.onnx"))).graph;
}

TEST(SlowPaths, ASessionsHeavyReferenceStepIsNamedAfterTimedRuns) {
  const ir::Graph graph = einsum_then_relu(96);
  runtime::Session session(graph, {{DType::kF32, {96, 96}}}, {});
  ASSERT_EQ(session.steps()[0].kernel, "reference");
  const Tensor x = Tensor::zeros(DType::kF32, {96, 96});
  const std::vector<std::string> w = profiler::slow_path_warnings(session, {&x});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("node 'einsum' (Einsum) runs on the op's reference kernel and takes ", 0),
            0u)
      << w[0];
}

TEST(SlowPaths, ASessionOnFastKernelsOnlyNeedsNoTimedRun) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {4, 4});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {4, 4});
  TempDir dir;
  const ir::Graph graph = runtime::load_model(m.save(dir.path("relu.onnx"))).graph;
  runtime::Session session(graph, {{DType::kF32, {4, 4}}}, {});
  ASSERT_NE(session.steps()[0].kernel, "reference");
  const Tensor x = Tensor::zeros(DType::kF32, {4, 4});
  EXPECT_TRUE(profiler::slow_path_warnings(session, {&x}).empty());
}

}  // namespace
}  // namespace strata::test
