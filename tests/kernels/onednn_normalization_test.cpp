// oneDNN softmax and layer normalisation (src/kernels/onednn/normalization.cpp) against the
// reference kernels, on random shapes and axes from a fixed seed, every opset semantics.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"
#include "ops/internal_ops.h"

namespace strata::test {
namespace {

TEST(OnednnSoftmax, RandomShapesAxesAndOpsets) {
  std::mt19937 rng(41);
  for (int i = 0; i < 20; ++i) {
    std::vector<int64_t> shape;
    for (int64_t d = random_int(rng, 1, 4); d > 0; --d) shape.push_back(random_int(rng, 1, 17));
    const int64_t rank = int64_t(shape.size());
    const int64_t axis = random_int(rng, -rank, rank - 1);
    const int64_t opset = i % 2 ? 13 : 11;
    const char* op = i % 3 == 0 ? "LogSoftmax" : "Softmax";
    SCOPED_TRACE(testing::Message()
                 << op << " " << Shape::of(shape).str() << " axis " << axis << " opset " << opset);
    GraphBuilder g(opset);
    g.input("x", shape);
    g.node(op, {"x"}, {"y"}).attributes["axis"] = attr_int(axis);
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
  }
}

TEST(OnednnLayerNorm, RandomShapesAndAxes) {
  std::mt19937 rng(42);
  for (int i = 0; i < 16; ++i) {
    std::vector<int64_t> shape;
    for (int64_t d = random_int(rng, 1, 4); d > 0; --d) shape.push_back(random_int(rng, 1, 19));
    const int64_t rank = int64_t(shape.size());
    const int64_t axis = random_int(rng, -rank, rank - 1);
    const int64_t begin = axis < 0 ? axis + rank : axis;
    const std::vector<int64_t> params(shape.begin() + begin, shape.end());
    const bool shift = i % 3 != 0;
    SCOPED_TRACE(testing::Message()
                 << Shape::of(shape).str() << " axis " << axis << (shift ? " B" : ""));
    GraphBuilder g(17);
    g.input("x", shape);
    g.constant("scale", random_tensor(rng, params));
    if (shift) g.constant("b", random_tensor(rng, params));
    ir::Node& node = g.node("LayerNormalization", {"x", "scale", shift ? "b" : ""}, {"y"});
    node.attributes["axis"] = attr_int(axis);
    node.attributes["epsilon"] = attr_float(1e-3f);
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].reason;
  }
}

TEST(OnednnLayerNorm, StatisticsOutputsStayWithTheReference) {
  std::mt19937 rng(43);
  GraphBuilder g(17);
  g.input("x", {2, 4});
  g.constant("scale", random_tensor(rng, {4}));
  g.node("LayerNormalization", {"x", "scale"}, {"y", "mean"});
  g.output("y");
  g.output("mean");
  const SessionResult r = run_session(g.build(), {random_tensor(rng, {2, 4})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("Mean or InvStdDev"), std::string::npos) << r.steps[0].reason;
}

// Inference-mode BatchNormalization after a convolution's output (blocked or channels-last) and on
// plain inputs of rank 2 to 5: same results as the reference, in the layout it came.
TEST(OnednnBatchNorm, RunningStatisticsInEveryLayout) {
  std::mt19937 rng(36);
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kBlocked, kernels::LayoutPolicy::kPlain}) {
    for (int64_t channels : {int64_t(5), int64_t(32)}) {
      SCOPED_TRACE(testing::Message() << kernels::layout_policy_name(layout) << " C=" << channels);
      GraphBuilder g;
      g.input("x", {2, 3, 6, 5});
      g.constant("w", random_tensor(rng, {channels, 3, 3, 3}));
      Tensor var = random_tensor(rng, {channels});
      for (int64_t i = 0; i < channels; ++i)
        var.data<float>()[i] = 0.2f + std::abs(var.data<float>()[i]);
      for (const char* p : {"scale", "bias", "mean"}) g.constant(p, random_tensor(rng, {channels}));
      g.constant("var", var);
      g.node("Conv", {"x", "w"}, {"c"});
      g.node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"})
          .attributes["epsilon"] = attr_float(1e-3f);
      g.node("Relu", {"n"}, {"y"});
      g.output("y");
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 3, 6, 5})}, layout);
      ASSERT_EQ(steps.size(), 3u);
      EXPECT_EQ(steps[1].kernel.rfind("onednn:", 0), 0u)
          << steps[1].kernel << ": " << steps[1].reason;
      EXPECT_EQ(steps[1].layout, steps[0].layout);
      EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
    }
  }
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{4, 3}, {2, 3, 7}, {1, 3, 2, 3, 4}}) {
    GraphBuilder g;
    g.input("x", shape);
    for (const char* p : {"scale", "bias", "mean"}) g.constant(p, random_tensor(rng, {3}));
    g.constant("var", Tensor::from<float>({3}, {0.5f, 1.0f, 2.0f}));
    g.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, shape)});
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].kernel;
  }
}

TEST(OnednnBatchNorm, StatisticsKnownOnlyWhileRunningStayWithTheReference) {
  std::mt19937 rng(37);
  GraphBuilder g;
  g.input("x", {1, 3, 4, 4});
  g.input("mean", {3});
  for (const char* p : {"scale", "bias", "var"}) g.constant(p, random_tensor(rng, {3}));
  g.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"y"});
  g.output("y");
  const SessionResult r =
      run_session(g.build(), {random_tensor(rng, {1, 3, 4, 4}), random_tensor(rng, {3})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("not constant"), std::string::npos) << r.steps[0].reason;
}

// LRN across channels in every layout a convolution writes, odd windows; even windows and
// rank 2 stay with the reference kernel, saying why.
TEST(OnednnLrn, OddWindowsInEveryLayoutMatchTheReference) {
  std::mt19937 rng(39);
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kPlain}) {
    for (int64_t size : {1, 3, 5}) {
      SCOPED_TRACE(testing::Message() << kernels::layout_policy_name(layout) << " size " << size);
      GraphBuilder g;
      g.input("x", {2, 3, 7, 6});
      g.constant("w", random_tensor(rng, {20, 3, 3, 3}));
      g.node("Conv", {"x", "w"}, {"c"});
      ir::Node& lrn = g.node("LRN", {"c"}, {"n"});
      lrn.attributes["size"] = attr_int(size);
      lrn.attributes["alpha"] = attr_float(0.02f);
      lrn.attributes["beta"] = attr_float(0.6f);
      lrn.attributes["bias"] = attr_float(1.5f);
      g.node("Relu", {"n"}, {"y"});  // reads any layout: the LRN's output need not be plain
      g.output("y");
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(g.build(), {random_tensor(rng, {2, 3, 7, 6})}, layout);
      ASSERT_EQ(steps.size(), 3u);
      EXPECT_EQ(steps[1].kernel.rfind("onednn:", 0), 0u)
          << steps[1].kernel << ": " << steps[1].reason;
      EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
    }
  }
  GraphBuilder g;
  g.input("x", {1, 4, 3, 3});
  g.node("LRN", {"x"}, {"y"}).attributes["size"] = attr_int(2);
  g.output("y");
  const SessionResult r = run_session(g.build(), {random_tensor(rng, {1, 4, 3, 3})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("even window"), std::string::npos) << r.steps[0].reason;
}

// FusedBatchNorm: ReLU as oneDNN's fused flag, other activations in place after it.
TEST(OnednnBatchNorm, FusedActivationsMatchTheReference) {
  std::mt19937 rng(42);
  for (const char* activation : {"Relu", "Sigmoid", "LeakyRelu"}) {
    for (auto layout : {kernels::LayoutPolicy::kBlocked, kernels::LayoutPolicy::kPlain}) {
      SCOPED_TRACE(testing::Message() << activation << " " << kernels::layout_policy_name(layout));
      GraphBuilder g;
      g.input("x", {1, 3, 6, 5});
      g.constant("w", random_tensor(rng, {20, 3, 3, 3}));
      Tensor var = random_tensor(rng, {20});
      for (int64_t i = 0; i < 20; ++i) var.data<float>()[i] = 0.2f + std::abs(var.data<float>()[i]);
      for (const char* p : {"scale", "bias", "mean"}) g.constant(p, random_tensor(rng, {20}));
      g.constant("var", var);
      g.node("Conv", {"x", "w"}, {"c"});
      ir::Node& norm = g.node("FusedBatchNorm", {"c", "scale", "bias", "mean", "var"}, {"y"},
                              std::string(ops::kStrataDomain));
      norm.attributes["activation"] = attr_string(activation);
      norm.attributes["activation_alpha"] = attr_float(0.1f);
      g.output("y");
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(g.build(), {random_tensor(rng, {1, 3, 6, 5})}, layout);
      ASSERT_EQ(steps.size(), 2u);
      EXPECT_EQ(steps[1].kernel.rfind("onednn:", 0), 0u)
          << steps[1].kernel << ": " << steps[1].reason;
      EXPECT_EQ(steps[1].kernel.find("+eltwise") != std::string::npos,
                std::string(activation) != "Relu")
          << steps[1].kernel;
    }
  }
}

}  // namespace
}  // namespace strata::test
