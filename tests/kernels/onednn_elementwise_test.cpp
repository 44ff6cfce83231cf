// oneDNN eltwise and binary (src/kernels/onednn/eltwise.cpp, binary.cpp) against the element-wise
// ops' reference kernels, on random shapes from a fixed seed, plain and after a convolution (so
// the data comes in the policy's layout).
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

std::vector<int64_t> random_shape(std::mt19937& rng) {
  std::vector<int64_t> shape;
  for (int64_t d = random_int(rng, 1, 4); d > 0; --d) shape.push_back(random_int(rng, 1, 13));
  return shape;
}

void expect_kernel(const runtime::StepInfo& step, const std::string& prefix) {
  EXPECT_EQ(step.kernel.rfind(prefix, 0), 0u) << step.kernel << ": " << step.reason;
}

TEST(OnednnEltwise, EveryFunctionOnRandomShapes) {
  std::mt19937 rng(31);
  struct Case {
    const char* op;
    std::map<std::string, ir::Attribute> attributes;
  };
  const std::vector<Case> cases = {
      {"Relu", {}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"Exp", {}},
      {"Sqrt", {}},
      {"Abs", {}},
      {"Neg", {}},
      {"Reciprocal", {}},
      {"Gelu", {}},
      {"HardSwish", {}},
      {"Elu", {{"alpha", attr_float(0.7f)}}},
      {"LeakyRelu", {{"alpha", attr_float(0.2f)}}},
  };
  for (const Case& c : cases) {
    const std::vector<int64_t> shape = random_shape(rng);
    SCOPED_TRACE(testing::Message() << c.op << " " << Shape::of(shape).str());
    GraphBuilder g(20);
    g.input("x", shape);
    g.node(c.op, {"x"}, {"y"}).attributes = c.attributes;
    g.output("y");
    Tensor x = random_tensor(rng, shape);
    if (std::string(c.op) == "Sqrt" || std::string(c.op) == "Reciprocal")
      for (int64_t i = 0; i < x.numel(); ++i)
        x.data<float>()[i] = std::abs(x.data<float>()[i]) + 0.1f;
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), {x});
    expect_kernel(steps[0], "onednn:");
  }
}

TEST(OnednnEltwise, ClipBoundsAndPowExponentFromConstants) {
  std::mt19937 rng(32);
  GraphBuilder g(13);
  g.input("x", {3, 5, 7});
  g.constant("lo", Tensor::from<float>({}, {-0.25f}));
  g.constant("hi", Tensor::from<float>({}, {0.5f}));
  g.constant("three", Tensor::from<float>({}, {3.0f}));
  g.node("Clip", {"x", "lo", "hi"}, {"c"});
  g.node("Pow", {"c", "three"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {3, 5, 7})});
  expect_kernel(steps[0], "onednn:");
  expect_kernel(steps[1], "onednn:");
}

TEST(OnednnEltwise, LogAndSoftplusStayWithTheReferenceKernel) {
  for (const char* op : {"Log", "Softplus"}) {
    GraphBuilder g;
    g.input("x", {4});
    g.node(op, {"x"}, {"y"});
    g.output("y");
    const SessionResult r = run_session(g.build(), {Tensor::from<float>({4}, {1, 2, 3, 4})}, {});
    EXPECT_EQ(r.steps[0].kernel, "reference") << op;
  }
}

TEST(OnednnBinary, BroadcastsOnRandomShapes) {
  std::mt19937 rng(33);
  const char* const ops[] = {"Add", "Sub", "Mul", "Div"};
  for (int i = 0; i < 24; ++i) {
    const char* op = ops[i % 4];
    const std::vector<int64_t> a = random_shape(rng);
    std::vector<int64_t> b(a.begin() + random_int(rng, 0, int64_t(a.size()) - 1), a.end());
    for (int64_t& d : b)
      if (random_int(rng, 0, 2) == 0) d = 1;
    const bool swap = (i % 4 == 0 || i % 4 == 2) && random_int(rng, 0, 1);  // Add, Mul commute
    SCOPED_TRACE(testing::Message() << op << " " << Shape::of(a).str() << " " << Shape::of(b).str()
                                    << (swap ? " swapped" : ""));
    GraphBuilder g;
    g.input("a", a);
    g.input("b", b);
    g.node(op, swap ? std::vector<std::string>{"b", "a"} : std::vector<std::string>{"a", "b"},
           {"y"});
    g.output("y");
    Tensor tb = random_tensor(rng, b);
    for (int64_t k = 0; k < tb.numel(); ++k)  // keep divisors away from zero
      tb.data<float>()[k] += tb.data<float>()[k] < 0 ? -0.5f : 0.5f;
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, a), tb});
    // oneDNN's JIT, or strata's broadcast kernel where oneDNN has only its reference one.
    if (steps[0].kernel != "cpu:broadcast_binary") expect_kernel(steps[0], "onednn:");
    EXPECT_EQ(steps[0].kernel.find(":ref"), std::string::npos) << steps[0].kernel;
  }
}

TEST(OnednnBinary, KeepsTheLayoutOfConvolutionOutputs) {
  std::mt19937 rng(34);
  for (auto layout : {kernels::LayoutPolicy::kChannelsLast, kernels::LayoutPolicy::kBlocked}) {
    GraphBuilder g;
    // 32 channels: whole blocks of 16, so the per-channel scale reads the same in every layout.
    g.input("x", {1, 32, 6, 5});
    g.constant("w", random_tensor(rng, {32, 32, 1, 1}));
    g.constant("scale", random_tensor(rng, {1, 32, 1, 1}));
    g.node("Conv", {"x", "w"}, {"c"});
    g.node("Mul", {"c", "scale"}, {"m"});  // one value per channel
    g.node("Add", {"m", "c"}, {"s"});      // same shapes
    g.node("Sigmoid", {"s"}, {"y"});
    g.output("y");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(g.build(), {random_tensor(rng, {1, 32, 6, 5})}, layout);
    ASSERT_EQ(steps.size(), 4u);
    for (size_t s = 1; s < 3; ++s) {
      EXPECT_EQ(steps[s].layout, steps[0].layout);
      EXPECT_TRUE(steps[s].conversions.empty()) << steps[s].conversions[0];
    }
  }
}

TEST(OnednnBinary, LowerRankPerChannelConstantKeepsTheConvolutionsLayout) {
  // ConvNeXt's layer scale and Caffe2's Scale layers: Mul(gamma[C,1,1], x[1,C,H,W]) with x
  // channels-last or blocked (the constant laid out once, padded to whole blocks). Odd channel
  // counts, both operand orders, every layout policy.
  std::mt19937 rng(35);
  for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kChannelsLast,
                      kernels::LayoutPolicy::kBlocked}) {
    for (int64_t channels : {int64_t(7), int64_t(20)}) {
      for (bool gamma_first : {true, false}) {
        SCOPED_TRACE(testing::Message() << kernels::layout_policy_name(layout) << " C=" << channels
                                        << (gamma_first ? " gamma first" : ""));
        GraphBuilder g;
        g.input("x", {1, 3, 5, 7});
        g.constant("w", random_tensor(rng, {channels, 3, 3, 3}));
        g.constant("gamma", random_tensor(rng, {channels, 1, 1}));
        g.node("Conv", {"x", "w"}, {"c"});
        g.node("Mul",
               gamma_first ? std::vector<std::string>{"gamma", "c"}
                           : std::vector<std::string>{"c", "gamma"},
               {"m"});
        g.node("Add", {"m", "c"}, {"s"});
        g.node("Relu", {"s"}, {"y"});
        g.output("y");
        const std::vector<runtime::StepInfo> steps =
            expect_fast_matches_reference(g.build(), {random_tensor(rng, {1, 3, 5, 7})}, layout);
        ASSERT_EQ(steps.size(), 4u);
        expect_kernel(steps[1], "onednn:");
        EXPECT_EQ(steps[1].layout, steps[0].layout);
        EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
        EXPECT_TRUE(steps[2].conversions.empty()) << steps[2].conversions[0];
      }
    }
  }
}

// oneDNN's binary needs the first operand in the output's shape: strata's broadcast kernel takes
// the others.
TEST(OnednnBinary, BroadcastFirstOperandOfSubRunsOnTheBroadcastKernel) {
  GraphBuilder g;
  g.input("a", {1, 3});
  g.input("b", {2, 3});
  g.node("Sub", {"a", "b"}, {"y"});
  g.output("y");
  const SessionResult r = run_session(
      g.build(), {Tensor::zeros(DType::kF32, {1, 3}), Tensor::zeros(DType::kF32, {2, 3})}, {});
  EXPECT_EQ(r.steps[0].kernel, "cpu:broadcast_binary") << r.steps[0].reason;
}

// An image normalised per channel at rank 3 ([3,H,W] - [3,1,1], torchvision's detection
// transform): oneDNN has only its reference implementation there, so the kernel reads the data
// with a leading axis of 1.
TEST(OnednnBinary, RankThreePerChannelOperandRunsOnAJitImplementation) {
  std::mt19937 rng(41);
  GraphBuilder g;
  g.input("image", {3, 17, 19});
  g.constant("mean", random_tensor(rng, {3, 1, 1}));
  g.node("Sub", {"image", "mean"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {3, 17, 19})});
  ASSERT_EQ(steps.size(), 1u);
  expect_kernel(steps[0], "onednn:");
  EXPECT_EQ(steps[0].kernel.find("ref"), std::string::npos) << steps[0].kernel;
  EXPECT_NE(steps[0].reason.find("leading axis of 1"), std::string::npos) << steps[0].reason;
}

// Sum of two inputs runs as an Add, in the layout of convolution outputs; three inputs stay with
// the reference kernel.
TEST(OnednnBinary, SumOfTwoIsAnAdd) {
  std::mt19937 rng(40);
  GraphBuilder g(6);
  g.input("a", {1, 16, 5, 5});
  g.input("b", {1, 16, 5, 5});
  g.node("Sum", {"a", "b"}, {"s"});
  g.node("Sum", {"s", "a", "b"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {1, 16, 5, 5}), random_tensor(rng, {1, 16, 5, 5})});
  ASSERT_EQ(steps.size(), 2u);
  expect_kernel(steps[0], "onednn:");
  EXPECT_EQ(steps[1].kernel, "reference");
}

}  // namespace
}  // namespace strata::test
