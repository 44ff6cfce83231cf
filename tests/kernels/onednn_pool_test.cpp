// oneDNN pooling (src/kernels/onednn/pool.cpp) and strata's AVX2 one (src/kernels/cpu/pool.cpp)
// against the MaxPool, AveragePool and global pool reference kernels, on random shapes from a
// fixed seed, in every layout.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

TEST(OnednnPool, RandomWindowsMatchTheReferenceKernel) {
  std::mt19937 rng(404);
  const kernels::LayoutPolicy layouts[] = {kernels::LayoutPolicy::kAuto,
                                           kernels::LayoutPolicy::kChannelsLast,
                                           kernels::LayoutPolicy::kBlocked};
  for (int i = 0; i < 30; ++i) {
    const bool is_max = i % 2 == 0;
    const int64_t c = random_int(rng, 1, 20), kh = random_int(rng, 1, 4),
                  kw = random_int(rng, 1, 4);
    const int64_t sh = random_int(rng, 1, 3), sw = random_int(rng, 1, 3);
    const std::vector<int64_t> pads = {random_int(rng, 0, kh - 1), random_int(rng, 0, kw - 1),
                                       random_int(rng, 0, kh - 1), random_int(rng, 0, kw - 1)};
    const int64_t h = kh + random_int(rng, 0, 13), w = kw + random_int(rng, 0, 13);
    const bool ceil = random_int(rng, 0, 2) == 0, include_pad = random_int(rng, 0, 1) == 1;
    SCOPED_TRACE(testing::Message()
                 << (is_max ? "max" : "avg") << " c" << c << " " << h << "x" << w << " k" << kh
                 << "x" << kw << " s" << sh << "x" << sw << " pads " << Shape::of(pads).str()
                 << (ceil ? " ceil" : "") << (include_pad ? " include_pad" : ""));
    // A convolution first, so the pooling reads the layout the policy chose.
    GraphBuilder g;
    g.input("x", {1, c, h, w});
    g.constant("w", random_tensor(rng, {c, c, 1, 1}));
    g.node("Conv", {"x", "w"}, {"h"});
    ir::Node& node = g.node(is_max ? "MaxPool" : "AveragePool", {"h"}, {"y"});
    node.attributes["kernel_shape"] = attr_ints({kh, kw});
    node.attributes["strides"] = attr_ints({sh, sw});
    node.attributes["pads"] = attr_ints(pads);
    node.attributes["ceil_mode"] = attr_int(ceil);
    if (!is_max) node.attributes["count_include_pad"] = attr_int(include_pad);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, {1, c, h, w})}, layouts[i % 3]);
    ASSERT_EQ(steps.size(), 2u);
    if (is_max || !ceil) {  // oneDNN's, or strata's AVX2 one for channels innermost
      EXPECT_NE(steps[1].kernel, "reference") << steps[1].reason;
    }
  }
}

// strata's own kernel where the channels are innermost, oneDNN's on plain inputs; both exact.
TEST(OnednnPool, ChannelVectorPoolingMatchesTheReferenceKernelInEveryLayout) {
  std::mt19937 rng(405);
  const bool avx2 = kernels::cpu::simd_level() >= kernels::cpu::Simd::kAvx2;
  for (int i = 0; i < 36; ++i) {
    const kernels::LayoutPolicy layout = i % 3 == 0   ? kernels::LayoutPolicy::kPlain
                                         : i % 3 == 1 ? kernels::LayoutPolicy::kChannelsLast
                                                      : kernels::LayoutPolicy::kBlocked;
    const bool is_max = i % 2 == 0;
    const int64_t c = random_int(rng, 1, 40), kh = random_int(rng, 1, 4),
                  kw = random_int(rng, 1, 4);
    const int64_t sh = random_int(rng, 1, 3), sw = random_int(rng, 1, 3);
    const std::vector<int64_t> pads = {random_int(rng, 0, kh - 1), random_int(rng, 0, kw - 1),
                                       random_int(rng, 0, kh - 1), random_int(rng, 0, kw - 1)};
    const int64_t n = random_int(rng, 1, 2), h = kh + random_int(rng, 0, 13),
                  w = kw + random_int(rng, 0, 13);
    const bool ceil = is_max && random_int(rng, 0, 1) == 1;
    const bool include_pad = random_int(rng, 0, 1) == 1;
    SCOPED_TRACE(testing::Message() << (is_max ? "max" : "avg") << " n" << n << " c" << c << " "
                                    << h << "x" << w << " k" << kh << "x" << kw << " s" << sh << "x"
                                    << sw << " pads " << Shape::of(pads).str()
                                    << (ceil ? " ceil" : "") << (include_pad ? " include_pad" : "")
                                    << " " << kernels::layout_policy_name(layout));
    GraphBuilder g;
    g.input("x", {n, c, h, w});
    g.constant("w", random_tensor(rng, {c, c, 1, 1}));
    g.node("Conv", {"x", "w"}, {"h"});
    ir::Node& node = g.node(is_max ? "MaxPool" : "AveragePool", {"h"}, {"p"});
    node.attributes["kernel_shape"] = attr_ints({kh, kw});
    node.attributes["strides"] = attr_ints({sh, sw});
    node.attributes["pads"] = attr_ints(pads);
    node.attributes["ceil_mode"] = attr_int(ceil);
    if (!is_max) node.attributes["count_include_pad"] = attr_int(include_pad);
    g.node("Relu", {"p"}, {"y"});  // keeps the pooling's output in the convolution's layout
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, {n, c, h, w})}, layout);
    ASSERT_EQ(steps.size(), 3u);
    const bool innermost = steps[1].layout != "nchw";
    EXPECT_EQ(steps[1].kernel == "strata:pool_avx2", avx2 && innermost)
        << steps[1].kernel << " in " << steps[1].layout << ": " << steps[1].reason;
  }
}

TEST(OnednnPool, GlobalPoolsInEveryLayout) {
  std::mt19937 rng(8);
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
    for (auto layout : {kernels::LayoutPolicy::kPlain, kernels::LayoutPolicy::kChannelsLast,
                        kernels::LayoutPolicy::kBlocked}) {
      SCOPED_TRACE(testing::Message() << op << " " << kernels::layout_policy_name(layout));
      GraphBuilder g;
      g.input("x", {2, 19, 7, 5});
      g.constant("w", random_tensor(rng, {19, 19, 1, 1}));
      g.node("Conv", {"x", "w"}, {"h"});
      g.node(op, {"h"}, {"y"});
      g.output("y");
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 19, 7, 5})}, layout);
      EXPECT_EQ(steps[1].kernel.rfind("onednn:", 0), 0u) << steps[1].reason;
    }
  }
}

TEST(OnednnPool, MaxPoolIndicesStayWithTheReferenceKernel) {
  GraphBuilder g;
  g.input("x", {1, 2, 4, 4});
  ir::Node& node = g.node("MaxPool", {"x"}, {"y", "i"});
  node.attributes["kernel_shape"] = attr_ints({2, 2});
  g.output("y");
  g.output("i");
  const SessionResult r = run_session(g.build(), {Tensor::zeros(DType::kF32, {1, 2, 4, 4})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("Indices"), std::string::npos) << r.steps[0].reason;
}

}  // namespace
}  // namespace strata::test
