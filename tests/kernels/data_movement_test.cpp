// Views, transposes and slices (src/kernels/cpu/view.cpp, src/kernels/onednn/transpose.cpp,
// slice.cpp): the same values as the reference kernels, shared buffers where the bytes already are
// the output, and oneDNN reorders for real permutations and windows.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

TEST(ViewKernel, ReshapeFlattenSqueezeShareTheirInputsBuffer) {
  std::mt19937 rng(51);
  GraphBuilder g(13);
  g.input("x", {2, 3, 4});
  g.constant("shape", Tensor::from<int64_t>({2}, {6, 4}));
  g.constant("axes", Tensor::from<int64_t>({1}, {0}));
  g.node("Neg", {"x"}, {"n"});  // in the arena, so the views can share its buffer
  g.node("Reshape", {"n", "shape"}, {"r"});
  g.node("Unsqueeze", {"r", "axes"}, {"u"});
  g.node("Flatten", {"u"}, {"f"});
  g.node("Relu", {"f"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 3, 4})});
  for (size_t s = 1; s <= 3; ++s) {
    EXPECT_EQ(steps[s].kernel, "strata:view");
    EXPECT_TRUE(steps[s].in_place);
  }
}

TEST(TransposeKernel, RandomPermutationsMatchTheReference) {
  std::mt19937 rng(52);
  for (int i = 0; i < 12; ++i) {
    const int64_t rank = std::uniform_int_distribution<int64_t>(2, 5)(rng);
    std::vector<int64_t> shape, perm;
    for (int64_t d = 0; d < rank; ++d) {
      shape.push_back(std::uniform_int_distribution<int64_t>(1, 7)(rng));
      perm.push_back(d);
    }
    std::shuffle(perm.begin(), perm.end(), rng);
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " perm " << Shape::of(perm).str());
    GraphBuilder g;
    g.input("x", shape);
    g.node("Transpose", {"x"}, {"y"}).attributes["perm"] = attr_ints(perm);
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_NE(steps[0].kernel, "reference") << steps[0].reason;
  }
}

TEST(TransposeKernel, ChannelsLastToNhwcIsAView) {
  std::mt19937 rng(53);
  GraphBuilder g;
  g.input("x", {1, 8, 5, 6});
  g.constant("w", random_tensor(rng, {8, 1, 3, 3}));
  ir::Node& conv = g.node("Conv", {"x", "w"}, {"c"});
  conv.attributes["pads"] = attr_ints({1, 1, 1, 1});
  conv.attributes["group"] = attr_int(8);  // depthwise is cheap; the layout is what matters
  g.node("Transpose", {"c"}, {"t"}).attributes["perm"] = attr_ints({0, 2, 3, 1});
  g.node("Relu", {"t"}, {"r"});
  g.node("Transpose", {"r"}, {"y"}).attributes["perm"] = attr_ints({0, 3, 1, 2});
  g.output("y");
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {1, 8, 5, 6})}, kernels::LayoutPolicy::kChannelsLast);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].layout, "nhwc");
  EXPECT_EQ(steps[1].kernel, "strata:view");
  EXPECT_EQ(steps[3].kernel, "strata:view");
  EXPECT_EQ(steps[3].layout, "nhwc");  // then converted to plain for the caller
}

TEST(SliceKernel, RandomWindowsMatchTheReference) {
  std::mt19937 rng(54);
  for (int i = 0; i < 12; ++i) {
    const std::vector<int64_t> shape = {std::uniform_int_distribution<int64_t>(1, 9)(rng),
                                        std::uniform_int_distribution<int64_t>(2, 9)(rng),
                                        std::uniform_int_distribution<int64_t>(3, 30)(rng)};
    const int64_t axis = i % 3, dim = shape[size_t(axis)];
    const int64_t start = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);
    const int64_t step = std::uniform_int_distribution<int64_t>(1, 3)(rng);
    SCOPED_TRACE(testing::Message() << Shape::of(shape).str() << " axis " << axis << " start "
                                    << start << " step " << step);
    GraphBuilder g(13);
    g.input("x", shape);
    g.constant("starts", Tensor::from<int64_t>({1}, {start}));
    g.constant("ends", Tensor::from<int64_t>({1}, {INT64_MAX}));
    g.constant("axes", Tensor::from<int64_t>({1}, {axis}));
    g.constant("steps", Tensor::from<int64_t>({1}, {step}));
    g.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
  }
}

}  // namespace
}  // namespace strata::test
