// Warnings for steps on reference implementations (src/profiler/slow_paths.cpp): the share
// threshold, what counts as a reference implementation, and the order.
#include "profiler/slow_paths.h"

#include <gtest/gtest.h>

#include "runtime/session.h"

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
      {"small", "Where", "reference", "no fast kernel serves this op", 4.9},
      {"fast", "MatMul", "onednn:brg:avx512_core", "f32 matrix product", 60},
      {"scores", "FusedMatMul", "onednn:ref:any", "f32 matrix product", 10},
      {"einsum", "Einsum", "reference", "the op's reference kernel (no fast kernel serves this op)",
       25},
      {"asked", "Conv", "reference", runtime::kFastKernelsOffReason, 50},
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

}  // namespace
}  // namespace strata::test
