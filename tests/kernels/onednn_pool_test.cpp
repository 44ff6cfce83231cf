// oneDNN pooling (src/kernels/onednn/pool.cpp) and strata's AVX2 one (src/kernels/cpu/pool.cpp)
// against the MaxPool, AveragePool and global pool reference kernels, on random shapes from a
// fixed seed, in every layout.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

// A MaxPool or AveragePool of random window, strides, pads and modes.
struct RandomPool {
  bool is_max;
  int64_t n, c, h, w, kh, kw, sh, sw;
  std::vector<int64_t> pads;
  bool ceil, include_pad;

  RandomPool(std::mt19937& rng, bool max, int64_t max_batch, int64_t max_channels, bool ceil_avg)
      : is_max(max),
        n(random_int(rng, 1, max_batch)),
        c(random_int(rng, 1, max_channels)),
        kh(random_int(rng, 1, 4)),
        kw(random_int(rng, 1, 4)),
        sh(random_int(rng, 1, 3)),
        sw(random_int(rng, 1, 3)) {
    pads = {random_int(rng, 0, kh - 1), random_int(rng, 0, kw - 1), random_int(rng, 0, kh - 1),
            random_int(rng, 0, kw - 1)};
    h = kh + random_int(rng, 0, 13);
    w = kw + random_int(rng, 0, 13);
    ceil = (is_max || ceil_avg) && random_int(rng, 0, 2) == 0;
    include_pad = random_int(rng, 0, 1) == 1;
  }

  std::string str() const {
    return (testing::Message() << (is_max ? "max" : "avg") << " n" << n << " c" << c << " " << h
                               << "x" << w << " k" << kh << "x" << kw << " s" << sh << "x" << sw
                               << " pads " << Shape::of(pads).str() << (ceil ? " ceil" : "")
                               << (include_pad ? " include_pad" : ""))
        .GetString();
  }

  // x → 1×1 Conv → the pooling (→ Relu when `then_relu`, keeping the pooling's output in the
  // convolution's layout), so the pooling reads the layout the policy chose.
  ir::Graph graph(std::mt19937& rng, bool then_relu) const {
    GraphBuilder g;
    g.input("x", {n, c, h, w});
    g.constant("w", random_tensor(rng, {c, c, 1, 1}));
    g.node("Conv", {"x", "w"}, {"h"});
    ir::Node& node = g.node(is_max ? "MaxPool" : "AveragePool", {"h"}, {then_relu ? "p" : "y"});
    node.attributes["kernel_shape"] = attr_ints({kh, kw});
    node.attributes["strides"] = attr_ints({sh, sw});
    node.attributes["pads"] = attr_ints(pads);
    node.attributes["ceil_mode"] = attr_int(ceil);
    if (!is_max) node.attributes["count_include_pad"] = attr_int(include_pad);
    if (then_relu) g.node("Relu", {"p"}, {"y"});
    g.output("y");
    return g.build();
  }
};

TEST(OnednnPool, RandomWindowsMatchTheReferenceKernel) {
  std::mt19937 rng(404);
  const kernels::LayoutPolicy layouts[] = {kernels::LayoutPolicy::kAuto,
                                           kernels::LayoutPolicy::kChannelsLast,
                                           kernels::LayoutPolicy::kBlocked};
  for (int i = 0; i < 30; ++i) {
    const RandomPool p(rng, i % 2 == 0, 1, 20, true);
    SCOPED_TRACE(p.str());
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        p.graph(rng, false), {random_tensor(rng, {p.n, p.c, p.h, p.w})}, layouts[i % 3]);
    ASSERT_EQ(steps.size(), 2u);
    if (p.is_max || !p.ceil) {  // oneDNN's, or strata's AVX2 one for channels innermost
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
    const RandomPool p(rng, i % 2 == 0, 2, 40, false);
    SCOPED_TRACE(p.str() + " " + kernels::layout_policy_name(layout));
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        p.graph(rng, true), {random_tensor(rng, {p.n, p.c, p.h, p.w})}, layout);
    ASSERT_EQ(steps.size(), 3u);
    const bool innermost = steps[1].layout != "nchw";
    EXPECT_EQ(steps[1].kernel == "strata:pool_avx2", avx2 && innermost)
        << steps[1].kernel << " in " << steps[1].layout << ": " << steps[1].reason;
  }
}

// Pooling takes the maximum (sum) over the window's rows once per input column, then over
// neighbouring columns (each thread its own row of column maxima or sums), at horizontal strides
// 1 and 2; averages divide by the window's count with or without its padding.
TEST(OnednnPool, SeparablePoolingMatchesTheReferenceKernel) {
  std::mt19937 rng(406);
  for (int i = 0; i < 48; ++i) {
    RandomPool p(rng, i % 3 == 0, 2, 40, false);
    p.sw = 1 + i % 2;
    p.kw = std::max<int64_t>(p.kw, 2);
    p.w = std::max(p.w, p.kw);
    p.pads[1] = std::min(p.pads[1], p.kw - 1);
    p.pads[3] = std::min(p.pads[3], p.kw - 1);
    const kernels::LayoutPolicy layout =
        i % 2 ? kernels::LayoutPolicy::kChannelsLast : kernels::LayoutPolicy::kBlocked;
    SCOPED_TRACE(p.str() + " " + kernels::layout_policy_name(layout));
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        p.graph(rng, true), {random_tensor(rng, {p.n, p.c, p.h, p.w})}, layout, 1e-4, 1 + i % 2);
    ASSERT_EQ(steps.size(), 3u);
    if (kernels::cpu::simd_level() >= kernels::cpu::Simd::kAvx2) {
      EXPECT_EQ(steps[1].kernel, "strata:pool_avx2") << steps[1].reason;
    }
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
