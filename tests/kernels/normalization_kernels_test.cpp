// strata's RMSNormalization and GroupNormalization kernels (src/kernels/cpu/normalization.cpp)
// against the reference kernels: random shapes with odd sizes (vector tails), every axis, scale
// per element or one value, both opsets of GroupNormalization, one and two threads, AVX-512 and
// portable loops; and the reasons the kernels give when they decline.
#include <gtest/gtest.h>

#include <optional>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

TEST(RmsNormKernel, RandomShapesAndAxesMatchTheReference) {
  std::mt19937 rng(71);
  for (int i = 0; i < 24; ++i) {
    const int64_t rank = random_int(rng, 1, 4);
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d) shape.push_back(random_int(rng, 1, d + 1 == rank ? 70 : 6));
    const int64_t axis = random_int(rng, -rank, rank - 1);
    const int64_t first = axis < 0 ? axis + rank : axis;
    const bool one_scale = i % 4 == 3;
    std::vector<int64_t> scale_shape(shape.begin() + first, shape.end());
    if (one_scale) scale_shape = {1};
    const int threads = 1 + i % 2;
    std::optional<PortableLoops> portable;  // every third shape: the portable loops
    if (i % 3 == 2) portable.emplace();
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " axis " << axis << " scale "
                                    << Shape::of(scale_shape).str() << " threads " << threads);
    GraphBuilder g(23);
    g.input("x", shape);
    g.input("scale", scale_shape);
    ir::Node& n = g.node("RMSNormalization", {"x", "scale"}, {"y"});
    n.attributes["axis"] = attr_int(axis);
    n.attributes["epsilon"] = attr_float(1e-3f);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, shape), random_tensor(rng, scale_shape)},
        kernels::LayoutPolicy::kAuto, 1e-4, threads);
    EXPECT_EQ(steps[0].kernel, std::string("strata:rms_norm") +
                                   (portable || !kernels::cpu::has_avx512() ? "" : ":avx512"))
        << steps[0].reason;
  }
}

TEST(RmsNormKernel, LargeRowsSplitAmongThreads) {
  std::mt19937 rng(72);
  const std::vector<int64_t> shape = {2, 67, 4099};  // above the split threshold, odd row size
  GraphBuilder g(23);
  g.input("x", shape);
  g.input("scale", {4099});
  g.node("RMSNormalization", {"x", "scale"}, {"y"});
  g.output("y");
  for (int threads : {1, 2})
    expect_fast_matches_reference(g.build(),
                                  {random_tensor(rng, shape), random_tensor(rng, {4099})},
                                  kernels::LayoutPolicy::kAuto, 1e-4, threads);
}

// A scalar X (axis -1 of rank 0) has no row to index: the reference kernel takes it (found by
// fuzz_graph: the check read its shape at index -1).
TEST(RmsNormKernel, LeavesAScalarToTheReference) {
  std::mt19937 rng(74);
  GraphBuilder g(23);
  g.input("x", {});
  g.input("scale", {});
  g.node("RMSNormalization", {"x", "scale"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {}), random_tensor(rng, {})});
  EXPECT_EQ(steps[0].kernel, "reference");
  EXPECT_NE(steps[0].reason.find("a scalar"), std::string::npos) << steps[0].reason;
}

TEST(RmsNormKernel, DeclinesWithAReason) {
  std::mt19937 rng(73);
  {  // scale repeated along the row's first axis
    GraphBuilder g(23);
    g.input("x", {2, 3, 5});
    g.input("scale", {5});
    g.node("RMSNormalization", {"x", "scale"}, {"y"}).attributes["axis"] = attr_int(1);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, {2, 3, 5}), random_tensor(rng, {5})});
    EXPECT_EQ(steps[0].kernel, "reference");
    EXPECT_NE(steps[0].reason.find("scale broadcasts along an axis"), std::string::npos)
        << steps[0].reason;
  }
  {  // statistics in double
    GraphBuilder g(23);
    g.input("x", {2, 5});
    g.input("scale", {5});
    g.node("RMSNormalization", {"x", "scale"}, {"y"}).attributes["stash_type"] = attr_int(11);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, {2, 5}), random_tensor(rng, {5})});
    EXPECT_EQ(steps[0].kernel, "reference");
    EXPECT_NE(steps[0].reason.find("stash_type float64"), std::string::npos) << steps[0].reason;
  }
}

TEST(GroupNormKernel, RandomShapesAndBothOpsetsMatchTheReference) {
  std::mt19937 rng(74);
  for (int i = 0; i < 20; ++i) {
    const int64_t groups = random_int(rng, 1, 5);
    std::vector<int64_t> shape = {random_int(rng, 1, 3), groups * random_int(rng, 1, 4)};
    const int64_t spatial_rank = random_int(rng, 0, 3);
    for (int64_t d = 0; d < spatial_rank; ++d) shape.push_back(random_int(rng, 1, 19));
    const int64_t opset = i % 2 ? 21 : 18;
    const std::vector<int64_t> param = {opset == 21 ? shape[1] : groups};
    const int threads = 1 + (i / 2) % 2;
    std::optional<PortableLoops> portable;  // every third shape: the portable loops
    if (i % 3 == 2) portable.emplace();
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " groups " << groups << " opset "
                                    << opset << " threads " << threads);
    GraphBuilder g(opset);
    g.input("x", shape);
    g.input("scale", param);
    g.input("bias", param);
    ir::Node& n = g.node("GroupNormalization", {"x", "scale", "bias"}, {"y"});
    n.attributes["num_groups"] = attr_int(groups);
    g.output("y");
    Tensor x = random_tensor(rng, shape);
    for (int64_t k = 0; k < x.numel(); ++k) x.data<float>()[k] += 3;  // a mean far from 0
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {x, random_tensor(rng, param), random_tensor(rng, param)},
        kernels::LayoutPolicy::kAuto, 1e-4, threads);
    EXPECT_EQ(steps[0].kernel, std::string("strata:group_norm") +
                                   (portable || !kernels::cpu::has_avx512() ? "" : ":avx512"))
        << steps[0].reason;
  }
}

TEST(GroupNormKernel, LargeGroupsSplitAmongThreads) {
  std::mt19937 rng(75);
  const std::vector<int64_t> shape = {1, 96, 45, 47};
  GraphBuilder g(21);
  g.input("x", shape);
  g.input("scale", {96});
  g.input("bias", {96});
  g.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}).attributes["num_groups"] =
      attr_int(32);
  g.output("y");
  for (int threads : {1, 2})
    expect_fast_matches_reference(
        g.build(), {random_tensor(rng, shape), random_tensor(rng, {96}), random_tensor(rng, {96})},
        kernels::LayoutPolicy::kAuto, 1e-4, threads);
}

}  // namespace
}  // namespace strata::test
