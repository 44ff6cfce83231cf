// strata's ChannelShuffle kernel (src/kernels/cpu/channel_shuffle.cpp) against the op's reference
// kernel: in the layout the convolution before it writes (nchw, nhwc, nChw16c or nChw8c, channel
// counts that pad the last block included), plain where its output is a graph output, every
// element size, and split among threads when large.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

void add_shuffle(GraphBuilder& g, const std::string& in, const std::string& out, int64_t group) {
  g.node("ChannelShuffle", {in}, {out}, "strata").attributes["group"] = attr_int(group);
}

TEST(ChannelShuffleKernel, ShufflesInTheConvolutionsLayout) {
  std::mt19937 rng(61);
  for (auto layout : {kernels::LayoutPolicy::kPlain, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kBlocked}) {
    // Channels-last rows of 2, 4, 8 or 16 groups interleave 16 channels of each group at a
    // time (AVX-512): whole chunks, partial ones, both.
    for (const auto& sizes : std::vector<std::pair<int64_t, int64_t>>{
             {12, 3}, {32, 4}, {40, 2}, {24, 24}, {64, 2}, {136, 8}, {48, 16}, {144, 4}}) {
      const int64_t channels = sizes.first, group = sizes.second;  // captured (no bindings)
      for_each_simd_level([&](auto) {
        SCOPED_TRACE(testing::Message() << kernels::layout_policy_name(layout) << " " << channels
                                        << " channels, " << group << " groups");
        GraphBuilder g;
        g.input("x", {2, 5, 6, 7});
        g.constant("w1", random_tensor(rng, {channels, 5, 3, 3}));
        g.constant("w2", random_tensor(rng, {channels, 1, 3, 3}));
        ir::Node& conv = g.node("Conv", {"x", "w1"}, {"a"});
        conv.attributes["pads"] = attr_ints({1, 1, 1, 1});
        add_shuffle(g, "a", "s", group);
        // A depthwise convolution after it, as in ShuffleNet.
        ir::Node& depthwise = g.node("Conv", {"s", "w2"}, {"y"});
        depthwise.attributes["group"] = attr_int(channels);
        depthwise.attributes["pads"] = attr_ints({1, 1, 1, 1});
        g.output("y");
        add_shuffle(g, "a", "plain", group);  // a graph output: written plain
        g.output("plain");
        const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
            g.build(), {random_tensor(rng, {2, 5, 6, 7})}, layout, 1e-4);
        ASSERT_EQ(steps.size(), 4u);
        for (size_t s : {1, 3}) EXPECT_EQ(steps[s].kernel, "strata:channel_shuffle");
        EXPECT_EQ(steps[1].layout, steps[0].layout);
        EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
        EXPECT_EQ(steps[3].layout, "nchw");
      });
    }
  }
}

TEST(ChannelShuffleKernel, EveryElementSizeAndRank) {
  std::mt19937 rng(62);
  for (DType dtype : {DType::kU8, DType::kF16, DType::kI32, DType::kI64})
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{3, 6}, {2, 8, 5}, {1, 6, 2, 3, 4}}) {
      SCOPED_TRACE(testing::Message() << dtype_name(dtype) << " rank " << shape.size());
      GraphBuilder g;
      g.input("x", shape, dtype);
      add_shuffle(g, "x", "y", 2);
      g.output("y");
      Tensor x = Tensor::zeros(dtype, shape);
      auto* bytes = static_cast<uint8_t*>(x.raw());
      for (size_t i = 0; i < x.nbytes(); ++i) bytes[i] = uint8_t(rng());
      if (dtype == DType::kF16)  // finite halves: clear each exponent's top bit
        for (size_t i = 1; i < x.nbytes(); i += 2) bytes[i] &= 0xBF;
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(g.build(), {x}, kernels::LayoutPolicy::kAuto, 0);
      EXPECT_EQ(steps[0].kernel, "strata:channel_shuffle");
    }
}

TEST(ChannelShuffleKernel, LargeShufflesSplitAmongThreads) {
  std::mt19937 rng(63);
  for (auto layout : {kernels::LayoutPolicy::kPlain, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kBlocked}) {
    SCOPED_TRACE(kernels::layout_policy_name(layout));
    GraphBuilder g;
    g.input("x", {2, 3, 130, 130});
    g.constant("w", random_tensor(rng, {36, 3, 1, 1}));
    g.node("Conv", {"x", "w"}, {"a"});
    add_shuffle(g, "a", "s", 4);
    g.node("Relu", {"s"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, {2, 3, 130, 130})}, layout, 1e-4, 2);
    EXPECT_EQ(steps[1].kernel, "strata:channel_shuffle");
    EXPECT_EQ(steps[1].threads, 2);
  }
}

// A ChannelShuffle written into a model by hand (domain "strata") with a group that is not
// positive, or that does not divide the channels: one sentence naming the node.
TEST(ChannelShuffleKernel, BadGroupsFailNamingTheNode) {
  for (const int64_t group : {0, -2, 4}) {
    SCOPED_TRACE(group);
    GraphBuilder g;
    g.input("x", {1, 6, 2, 2});
    add_shuffle(g, "x", "y", group);
    g.output("y");
    try {
      const ir::Graph graph = g.build();
      run_session(graph, {Tensor::zeros(DType::kF32, {1, 6, 2, 2})}, {});
      ADD_FAILURE() << "group " << group << " ran";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("y_node"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(group > 0 ? "groups" : "'group'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace strata::test
