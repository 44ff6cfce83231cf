// oneDNN deconvolution (src/kernels/onednn/conv_transpose.cpp) against the ConvTranspose reference
// kernel, on random shapes from a fixed seed: odd sizes, groups, strides, dilations, asymmetric
// pads, output_padding, output_shape and auto_pad, with and without bias, every layout policy.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

struct TransposeCase {
  int64_t n, c, m, group;
  std::vector<int64_t> in, kernel, strides, dilations, pads, output_padding;
  bool bias;
  std::string auto_pad;               // "" for explicit pads
  std::vector<int64_t> output_shape;  // spatial sizes; empty: from the other attributes
};

TransposeCase random_transpose_case(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  TransposeCase k;
  const int64_t rank = pick(0, 5) == 0 ? 1 : 2;
  k.n = pick(1, 2);
  k.group = pick(0, 2) == 0 ? pick(2, 3) : 1;
  k.c = k.group * pick(1, 7);
  k.m = k.group * pick(1, 7);
  for (int64_t d = 0; d < rank; ++d) {
    k.in.push_back(pick(1, 12));
    k.kernel.push_back(pick(1, 4));
    k.strides.push_back(pick(1, 3));
    k.dilations.push_back(pick(0, 3) == 0 ? 2 : 1);
    k.output_padding.push_back(pick(0, k.strides.back() - 1));
  }
  for (int64_t d = 0; d < 2 * rank; ++d) k.pads.push_back(pick(0, 1));
  for (int64_t d = 0; d < rank; ++d) {  // at least one output along each axis
    const int64_t full = (k.in[size_t(d)] - 1) * k.strides[size_t(d)] +
                         (k.kernel[size_t(d)] - 1) * k.dilations[size_t(d)] + 1 +
                         k.output_padding[size_t(d)];
    if (full - k.pads[size_t(d)] - k.pads[size_t(d + rank)] < 1)
      k.pads[size_t(d)] = k.pads[size_t(d + rank)] = 0;
  }
  const int64_t pad_kind = pick(0, 4);
  k.auto_pad = pad_kind == 0 ? "SAME_UPPER" : pad_kind == 1 ? "SAME_LOWER" : "";
  k.bias = pick(0, 2) != 0;
  return k;
}

std::string describe(const TransposeCase& k) {
  auto list = [](const std::vector<int64_t>& v) { return fmt::format("{}", fmt::join(v, ",")); };
  return fmt::format(
      "n{} c{} m{} group{} in {} kernel {} strides {} dilations {} pads {} "
      "output_padding {} auto_pad '{}'{}",
      k.n, k.c, k.m, k.group, list(k.in), list(k.kernel), list(k.strides), list(k.dilations),
      list(k.pads), list(k.output_padding), k.auto_pad, k.bias ? " bias" : "");
}

// One ConvTranspose; with `reader`, that op (any layout) reads its output and gives the graph's.
std::pair<ir::Graph, std::vector<Tensor>> transpose_graph(const TransposeCase& k, std::mt19937& rng,
                                                          const char* reader = nullptr) {
  GraphBuilder b;
  std::vector<int64_t> x_shape = {k.n, k.c};
  x_shape.insert(x_shape.end(), k.in.begin(), k.in.end());
  std::vector<int64_t> w_shape = {k.c, k.m / k.group};
  w_shape.insert(w_shape.end(), k.kernel.begin(), k.kernel.end());
  b.input("x", x_shape);
  b.constant("w", random_tensor(rng, w_shape));
  if (k.bias) b.constant("b", random_tensor(rng, {k.m}));
  ir::Node& node = b.node("ConvTranspose", {"x", "w", k.bias ? "b" : ""}, {"y"});
  node.attributes["group"] = attr_int(k.group);
  node.attributes["strides"] = attr_ints(k.strides);
  node.attributes["dilations"] = attr_ints(k.dilations);
  node.attributes["output_padding"] = attr_ints(k.output_padding);
  if (!k.output_shape.empty()) node.attributes["output_shape"] = attr_ints(k.output_shape);
  if (k.auto_pad.empty())
    node.attributes["pads"] = attr_ints(k.pads);
  else
    node.attributes["auto_pad"] = attr_string(k.auto_pad);
  if (reader) {
    b.node(reader, {"y"}, {"read"});
    b.output("read");
  } else {
    b.output("y");
  }
  return {b.build(), {random_tensor(rng, x_shape)}};
}

TEST(OnednnConvTranspose, RandomShapesMatchTheReferenceKernel) {
  std::mt19937 rng(20261122);
  const kernels::LayoutPolicy layouts[] = {
      kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kPlain,
      kernels::LayoutPolicy::kChannelsLast, kernels::LayoutPolicy::kBlocked};
  for (int i = 0; i < 48; ++i) {
    const TransposeCase k = random_transpose_case(rng);
    SCOPED_TRACE(describe(k));
    auto [graph, inputs] = transpose_graph(k, rng, i % 2 ? "Neg" : nullptr);
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, layouts[i % 4]);
    ASSERT_GE(steps.size(), 1u);
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u)
        << steps[0].kernel << ": " << steps[0].reason;
  }
}

// An output_shape past the full result: the op leaves the extra rows and columns at the bias, and
// so does oneDNN with a negative end pad, by less than a stride; by more, the reference kernel
// runs.
TEST(OnednnConvTranspose, AnOutputLargerThanTheFullResultHoldsTheBias) {
  std::mt19937 rng(9);
  for (const std::vector<int64_t>& output_shape :
       {std::vector<int64_t>{14, 11}, std::vector<int64_t>{16, 13}}) {  // full result: 13 x 10
    const TransposeCase k{
        1, 5, 7, 1, {6, 5}, {3, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {0, 0}, true, "", output_shape};
    SCOPED_TRACE(describe(k) + fmt::format(" output_shape {}", fmt::join(output_shape, ",")));
    auto [graph, inputs] = transpose_graph(k, rng);
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kAuto);
    ASSERT_EQ(steps.size(), 1u);
    if (output_shape[0] == 14)
      EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
    else
      EXPECT_NE(steps[0].reason.find("past the full result by a stride or more"), std::string::npos)
          << steps[0].reason;
  }
}

TEST(OnednnConvTranspose, UpsamplingByTwoKeepsTheBlockedLayout) {
  std::mt19937 rng(5);
  const TransposeCase k{1,      16,           8,      1,    {9, 7}, {3, 3}, {2, 2},
                        {1, 1}, {1, 1, 1, 1}, {1, 1}, true, "",     {}};
  auto [graph, inputs] = transpose_graph(k, rng, "Relu");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
  EXPECT_EQ(steps[0].layout, native_blocked_name()) << steps[0].kernel;
}

}  // namespace
}  // namespace strata::test
