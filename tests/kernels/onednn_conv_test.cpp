// oneDNN convolution (src/kernels/onednn/conv.cpp) against the Conv and FusedConv reference
// kernels, on random shapes from a fixed seed: odd sizes, groups and depthwise, strides,
// dilations, asymmetric pads, fused activations and residuals, every layout policy.
#include <gtest/gtest.h>

#include "kernels/cpu/silu.h"
#include "kernels/kernel_test_util.h"
#include "ops/fused_activation.h"
#include "ops/internal_ops.h"

namespace strata::test {
namespace {

struct ConvCase {
  int64_t n, c, m, group, rank;
  std::vector<int64_t> in, kernel, strides, dilations, pads;
  std::string activation;
  bool bias, residual;
};

// Draws a valid convolution: every output size at least 1.
ConvCase random_case(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  ConvCase k;
  k.rank = pick(0, 9) == 0 ? 1 : 2;  // mostly 2-D, some 1-D
  k.n = pick(1, 2);
  k.group = pick(0, 3) == 0 ? 1 : pick(1, 3);
  const bool depthwise = pick(0, 3) == 0;
  k.c = depthwise ? pick(1, 24) : k.group * pick(1, 9);
  if (depthwise) k.group = k.c;
  k.m = k.group * (depthwise ? pick(1, 2) : pick(1, 9));
  for (int64_t d = 0; d < k.rank; ++d) {
    k.kernel.push_back(pick(1, 5));
    k.strides.push_back(pick(1, 3));
    k.dilations.push_back(pick(0, 3) == 0 ? 2 : 1);
    const int64_t extent = (k.kernel.back() - 1) * k.dilations.back() + 1;
    k.in.push_back(extent + pick(0, 17));
  }
  for (int64_t d = 0; d < 2 * k.rank; ++d) k.pads.push_back(pick(0, 2));
  static const char* const kActivations[] = {"",     "Relu",      "Clip", "Sigmoid",  "Silu",
                                             "Gelu", "LeakyRelu", "Tanh", "HardSwish"};
  k.activation = kActivations[pick(0, 8)];
  k.bias = pick(0, 3) != 0;
  k.residual = pick(0, 2) == 0;
  return k;
}

std::string describe(const ConvCase& k) {
  std::string s = "n" + std::to_string(k.n) + " c" + std::to_string(k.c) + " m" +
                  std::to_string(k.m) + " group" + std::to_string(k.group) + " in";
  for (int64_t v : k.in) s += " " + std::to_string(v);
  s += " kernel";
  for (int64_t v : k.kernel) s += " " + std::to_string(v);
  s += " strides";
  for (int64_t v : k.strides) s += " " + std::to_string(v);
  s += " dilations";
  for (int64_t v : k.dilations) s += " " + std::to_string(v);
  s += " pads";
  for (int64_t v : k.pads) s += " " + std::to_string(v);
  return s + " act '" + k.activation + "'" + (k.bias ? " bias" : "") +
         (k.residual ? " residual" : "");
}

// A graph of one FusedConv (or a plain Conv when nothing is fused) and its random inputs; with
// `reader`, that op (one input, any layout) reads the convolution's output and gives the graph's.
std::pair<ir::Graph, std::vector<Tensor>> conv_graph(const ConvCase& k, std::mt19937& rng,
                                                     const char* reader = nullptr) {
  GraphBuilder b;
  std::vector<int64_t> x_shape = {k.n, k.c};
  x_shape.insert(x_shape.end(), k.in.begin(), k.in.end());
  std::vector<int64_t> w_shape = {k.m, k.c / k.group};
  w_shape.insert(w_shape.end(), k.kernel.begin(), k.kernel.end());
  std::vector<Tensor> inputs;
  inputs.push_back(random_tensor(rng, x_shape));
  b.input("x", x_shape);
  b.constant("w", random_tensor(rng, w_shape));
  if (k.bias) b.constant("b", random_tensor(rng, {k.m}));
  std::vector<int64_t> y_shape = {k.n, k.m};
  for (size_t d = 0; d < k.in.size(); ++d) {
    const int64_t extent = (k.kernel[d] - 1) * k.dilations[d] + 1;
    y_shape.push_back((k.in[d] + k.pads[d] + k.pads[d + k.in.size()] - extent) / k.strides[d] + 1);
  }
  if (k.residual) {
    b.input("z", y_shape);
    inputs.push_back(random_tensor(rng, y_shape));
  }
  const bool fused = k.residual || !k.activation.empty();
  std::vector<std::string> in = {"x", "w", k.bias ? "b" : ""};
  if (k.residual) in.push_back("z");
  ir::Node& node = fused ? b.node("FusedConv", in, {"y"}, std::string(ops::kStrataDomain))
                         : b.node("Conv", in, {"y"});
  node.attributes["group"] = attr_int(k.group);
  node.attributes["kernel_shape"] = attr_ints(k.kernel);
  node.attributes["strides"] = attr_ints(k.strides);
  node.attributes["dilations"] = attr_ints(k.dilations);
  node.attributes["pads"] = attr_ints(k.pads);
  if (fused) {
    node.attributes["activation"] = attr_string(k.activation);
    node.attributes["activation_alpha"] = attr_float(k.activation == "Clip" ? -0.3f : 0.1f);
    node.attributes["activation_beta"] = attr_float(0.4f);
  }
  if (reader) {
    b.node(reader, {"y"}, {"read"});
    b.output("read");
  } else {
    b.output("y");
  }
  return {b.build(), inputs};
}

TEST(OnednnConv, RandomShapesMatchTheReferenceKernel) {
  std::mt19937 rng(20261122);
  for (int i = 0; i < 40; ++i) {
    const ConvCase k = random_case(rng);
    SCOPED_TRACE(describe(k));
    auto [graph, inputs] = conv_graph(k, rng);
    const kernels::LayoutPolicy layouts[] = {
        kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kPlain,
        kernels::LayoutPolicy::kChannelsLast, kernels::LayoutPolicy::kBlocked};
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, layouts[i % 4]);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u)
        << steps[0].kernel << ": " << steps[0].reason;
  }
}

// oneDNN's GEMM-based convolution (its choice in plain layouts here) applies eltwise post-ops
// through scalar reference code: the kernel runs the activation as its own primitive after it,
// after the residual sum, and must still match the reference.
TEST(OnednnConv, PlainLayoutActivationsRunAfterTheGemmConvolution) {
  std::mt19937 rng(7);
  for (const char* activation : {"Relu", "Clip", "Sigmoid", "Silu", "Gelu", "LeakyRelu", "Tanh",
                                 "HardSwish", "HardSigmoid", "Elu"}) {
    for (bool residual : {false, true}) {
      ConvCase k{1,      6,      10,           1,          2,    {13, 11}, {1, 1},
                 {1, 1}, {1, 1}, {0, 0, 0, 0}, activation, true, residual};
      SCOPED_TRACE(describe(k));
      auto [graph, inputs] = conv_graph(k, rng);
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kPlain);
      ASSERT_EQ(steps.size(), 1u);
      const bool own_silu = std::string(activation) == "Silu" && kernels::cpu::silu_is_vectorised();
      const std::string after = own_silu ? "+silu:strata" : "+eltwise_";
      if (steps[0].kernel.find(":gemm:") != std::string::npos)
        EXPECT_NE(steps[0].kernel.find(after), std::string::npos) << steps[0].kernel;
      else
        ADD_FAILURE() << "expected oneDNN's GEMM convolution in plain layout, got "
                      << steps[0].kernel;
    }
  }
}

// Groups of 6 channels have only oneDNN's GEMM-based implementation, in channels-last layouts
// too, where its fused eltwise post-ops run through scalar reference code: the activation runs
// after it, and the result matches. (Stride 2: grouped 1×1 convolutions of stride 1 are
// onednn_grouped_pointwise_conv's, tested below.)
TEST(OnednnConv, ChannelsLastGemmConvolutionsRunTheirActivationAfter) {
  std::mt19937 rng(9);
  GraphBuilder b;
  b.input("x", {1, 12, 15, 13});
  b.constant("w1", random_tensor(rng, {8, 6, 1, 1}));
  b.constant("w2", random_tensor(rng, {8, 8, 1, 1}));
  ir::Node& grouped = b.node("FusedConv", {"x", "w1"}, {"h"}, std::string(ops::kStrataDomain));
  grouped.attributes["group"] = attr_int(2);
  grouped.attributes["kernel_shape"] = attr_ints({1, 1});
  grouped.attributes["strides"] = attr_ints({2, 2});
  grouped.attributes["activation"] = attr_string("Relu");
  b.node("Conv", {"h", "w2"}, {"y"});  // reads the grouped one's output as it is laid out
  b.output("y");
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      b.build(), {random_tensor(rng, {1, 12, 15, 13})}, kernels::LayoutPolicy::kChannelsLast);
  ASSERT_EQ(steps.size(), 2u);
  if (steps[0].kernel.find(":gemm:") == std::string::npos)
    GTEST_SKIP() << "oneDNN has a direct implementation for these groups here: " << steps[0].kernel;
  EXPECT_EQ(steps[0].layout, "nhwc");
  EXPECT_NE(steps[0].kernel.find("+eltwise_relu"), std::string::npos) << steps[0].kernel;
}

// Grouped 1×1 convolutions of stride 1 (ShuffleNet's) run as one oneDNN GEMM per group over
// channels-last rows, with bias, residual and activation as post-ops, in any layout policy but
// plain, after a blocked convolution too, and match the reference kernel.
TEST(OnednnGroupedPointwiseConv, RandomGroupedOneByOneConvolutionsMatchTheReferenceKernel) {
  std::mt19937 rng(20261127);
  const kernels::LayoutPolicy layouts[] = {kernels::LayoutPolicy::kAuto,
                                           kernels::LayoutPolicy::kChannelsLast,
                                           kernels::LayoutPolicy::kBlocked};
  for (int i = 0; i < 24; ++i) {
    ConvCase k;
    k.rank = random_int(rng, 1, 3);
    k.n = random_int(rng, 1, 2);
    k.group = random_int(rng, 2, 8);
    k.c = k.group * random_int(rng, 2, 40);
    k.m = k.group * random_int(rng, 1, 40);
    for (int64_t d = 0; d < k.rank; ++d) {
      k.in.push_back(random_int(rng, 1, k.rank == 3 ? 6 : 20));
      k.kernel.push_back(1);
      k.strides.push_back(1);
      k.dilations.push_back(1);
      k.pads.push_back(0);
      k.pads.push_back(0);
    }
    static const char* const kPointwiseActivations[] = {"", "Relu", "Clip", "Sigmoid", "Silu"};
    k.activation = kPointwiseActivations[random_int(rng, 0, 4)];
    k.bias = random_int(rng, 0, 3) != 0;
    k.residual = random_int(rng, 0, 2) == 0;
    SCOPED_TRACE(describe(k));
    auto [graph, inputs] = conv_graph(k, rng);
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, layouts[i % 3], 1e-4, 1 + i % 2);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_NE(steps[0].kernel.find(":per_group"), std::string::npos)
        << steps[0].kernel << ": " << steps[0].reason;
    EXPECT_EQ(steps[0].layout.find("c"), steps[0].layout.size() - 1) << steps[0].layout;
  }
}

// After a blocked convolution, and with --layout plain (where the kernel declines: it reads and
// writes channels-last rows, and oneDNN's convolution takes the node).
TEST(OnednnGroupedPointwiseConv, FollowsBlockedConvolutionsAndDeclinesPlainLayouts) {
  std::mt19937 rng(11);
  GraphBuilder b;
  b.input("x", {1, 16, 9, 10});
  b.constant("w1", random_tensor(rng, {32, 16, 3, 3}));
  b.constant("w2", random_tensor(rng, {24, 8, 1, 1}));
  ir::Node& first = b.node("Conv", {"x", "w1"}, {"h"});
  first.attributes["pads"] = attr_ints({1, 1, 1, 1});
  ir::Node& grouped = b.node("Conv", {"h", "w2"}, {"y"});
  grouped.attributes["group"] = attr_int(4);
  b.output("y");
  const ir::Graph graph = b.build();
  const std::vector<Tensor> inputs = {random_tensor(rng, {1, 16, 9, 10})};
  std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].layout, native_blocked_name());
  EXPECT_NE(steps[1].kernel.find(":per_group"), std::string::npos) << steps[1].kernel;
  steps = expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kPlain);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].kernel.find(":per_group"), std::string::npos) << steps[1].kernel;
  EXPECT_EQ(steps[1].layout, "nchw");
}

// A grouped convolution with 8 channels a group (regnet's) after a blocked one: oneDNN has no
// nChw16c implementation for it (its nChw8c one serves on AVX2), and its GEMM-based one in plain
// layouts is 4x slower than its channels-last one, which the kernel takes then.
TEST(OnednnConv, SmallGroupsAfterABlockedConvolutionRunChannelsLast) {
  std::mt19937 rng(8);
  GraphBuilder b;
  b.input("x", {1, 16, 20, 20});
  b.constant("w1", random_tensor(rng, {48, 16, 1, 1}));
  b.constant("w2", random_tensor(rng, {48, 8, 3, 3}));
  b.node("Conv", {"x", "w1"}, {"h"});
  ir::Node& grouped = b.node("Conv", {"h", "w2"}, {"y"});
  grouped.attributes["group"] = attr_int(6);
  grouped.attributes["pads"] = attr_ints({1, 1, 1, 1});
  b.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(b.build(), {random_tensor(rng, {1, 16, 20, 20})});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].layout, native_blocked_name()) << steps[0].kernel;
  EXPECT_EQ(steps[1].layout, native_blocked_name() == "nChw8c" ? "nChw8c" : "nhwc")
      << steps[1].kernel << ": " << steps[1].reason;
  for (const char* slow : {":gemm:", ":ref"})
    EXPECT_EQ(steps[1].kernel.find(slow), std::string::npos) << steps[1].kernel;
}

// 3×3 stride-1 convolutions with 64 channels or more whose output may stay blocked (here read by
// a Neg) run Winograd's algorithm (fewer multiplications, other rounding): still within the
// reference's tolerance, residual and ReLU too.
TEST(OnednnConv, WideThreeByThreeConvolutionsRunWinograd) {
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "oneDNN 2.6 has Winograd convolutions for AVX-512 only";
  std::mt19937 rng(64);
  for (bool residual : {false, true}) {
    ConvCase k{1,
               64,
               80,
               1,
               2,
               {15, 13},
               {3, 3},
               {1, 1},
               {1, 1},
               {1, 1, 1, 1},
               residual ? "Relu" : "",
               true,
               residual};
    SCOPED_TRACE(describe(k));
    auto [graph, inputs] = conv_graph(k, rng, "Neg");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_NE(steps[0].kernel.find("wino_2x3"), std::string::npos) << steps[0].kernel;
  }
  // From 32×32 outputs and 64 inputs (32 outputs or more) oneDNN's 4×4-tile Winograd runs first.
  for (const int64_t outputs : {32, 96}) {
    ConvCase large{1,      64,     outputs,      1,      2,    {34, 36}, {3, 3},
                   {1, 1}, {1, 1}, {1, 1, 1, 1}, "Relu", true, false};
    SCOPED_TRACE(describe(large));
    auto [graph, inputs] = conv_graph(large, rng, "Neg");
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_NE(steps[0].kernel.find("wino_4x3"), std::string::npos) << steps[0].kernel;
  }
  ConvCase narrow{1, 16, 16, 1, 2, {15, 13}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, "", true, false};
  auto [graph, inputs] = conv_graph(narrow, rng, "Neg");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kernel.find("wino"), std::string::npos)
      << "under 64 channels Winograd is left to fast-run: " << steps[0].kernel;
}

// SiLU runs as strata's own pass after the convolution in every layout (oneDNN's swish post-op is
// slower), after the residual sum; with it a wide 3×3 convolution can still run Winograd's. (On a
// CPU without AVX-512 the post-op stays: the outputs are checked all the same.)
TEST(OnednnConv, SiluRunsAfterTheConvolutionInEveryLayout) {
  std::mt19937 rng(11);
  for (kernels::LayoutPolicy policy :
       {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kPlain,
        kernels::LayoutPolicy::kChannelsLast, kernels::LayoutPolicy::kBlocked}) {
    for (bool residual : {false, true}) {
      const ConvCase k{1,      17,     70,           1,      2,    {23, 19}, {3, 3},
                       {1, 1}, {1, 1}, {1, 1, 1, 1}, "Silu", true, residual};
      SCOPED_TRACE(describe(k) + " policy " + kernels::layout_policy_name(policy));
      auto [graph, inputs] = conv_graph(k, rng, "Neg");
      const std::vector<runtime::StepInfo> steps =
          expect_fast_matches_reference(graph, inputs, policy);
      ASSERT_EQ(steps.size(), 2u);
      if (kernels::cpu::silu_is_vectorised()) {
        EXPECT_NE(steps[0].kernel.find("+silu:strata"), std::string::npos) << steps[0].kernel;
      }
    }
  }
  if (!kernels::cpu::silu_is_vectorised()) return;  // the swish post-op: no Winograd then
  const ConvCase wide{1,      64,     64,           1,      2,    {14, 14}, {3, 3},
                      {1, 1}, {1, 1}, {1, 1, 1, 1}, "Silu", true, false};
  auto [graph, inputs] = conv_graph(wide, rng, "Neg");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(graph, inputs, kernels::LayoutPolicy::kBlocked);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[0].kernel.find("wino"), std::string::npos) << steps[0].kernel;
}

TEST(OnednnConv, AutoPadSameUpperAndLower) {
  std::mt19937 rng(7);
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER", "VALID"}) {
    SCOPED_TRACE(pad);
    GraphBuilder b;
    b.input("x", {1, 5, 9, 8});
    b.constant("w", random_tensor(rng, {7, 5, 4, 3}));
    ir::Node& node = b.node("Conv", {"x", "w"}, {"y"});
    node.attributes["auto_pad"] = attr_string(pad);
    node.attributes["strides"] = attr_ints({2, 3});
    b.output("y");
    expect_fast_matches_reference(b.build(), {random_tensor(rng, {1, 5, 9, 8})});
  }
}

TEST(OnednnConv, DeclinesWithAReason) {
  std::mt19937 rng(3);
  GraphBuilder b;  // weights computed at run time cannot be packed at prepare
  b.input("x", {1, 2, 5, 5});
  b.input("w", {3, 2, 3, 3});
  b.node("Conv", {"x", "w"}, {"y"});
  b.output("y");
  const SessionResult r = run_session(
      b.build(), {random_tensor(rng, {1, 2, 5, 5}), random_tensor(rng, {3, 2, 3, 3})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("weights W are not constant"), std::string::npos)
      << r.steps[0].reason;
}

TEST(OnednnConv, AutoLayoutIsBlockedUnlessTransposesOrQuantizationReadConvolutionOutputs) {
  std::mt19937 rng(12);
  for (const std::string between : {"", "Transpose", "QuantizeLinear"}) {
    SCOPED_TRACE("Conv -> " + (between.empty() ? "" : between + " -> ") + "Conv");
    GraphBuilder b;
    b.input("x", {1, 5, 9, 7});
    b.constant("w1", random_tensor(rng, {20, 5, 3, 3}));
    b.constant("w2", random_tensor(rng, {20, 20, 1, 1}));
    b.node("Conv", {"x", "w1"}, {"h"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
    if (between == "Transpose") {  // ConvNeXt's
      b.node("Transpose", {"h"}, {"t"}).attributes["perm"] = attr_ints({0, 2, 3, 1});
      b.node("Relu", {"t"}, {"r"});
      b.node("Transpose", {"r"}, {"u"}).attributes["perm"] = attr_ints({0, 3, 1, 2});
      b.node("Conv", {"u", "w2"}, {"y"});
    } else if (between == "QuantizeLinear") {  // a QDQ graph's float32 convolutions
      b.constant("scale", Tensor::from<float>({}, {0.05f}));
      b.constant("zero", Tensor::zeros(DType::kU8, {}));
      b.node("QuantizeLinear", {"h", "scale", "zero"}, {"q"});
      b.node("DequantizeLinear", {"q", "scale", "zero"}, {"d"});
      b.node("Conv", {"d", "w2"}, {"y"});
    } else {
      b.node("Conv", {"h", "w2"}, {"y"});
    }
    b.node("Relu", {"y"}, {"z"});
    b.output("z");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        b.build(), {random_tensor(rng, {1, 5, 9, 7})}, kernels::LayoutPolicy::kAuto);
    EXPECT_EQ(steps[0].layout, between.empty() ? native_blocked_name() : "nhwc");
    if (between == "Transpose") {
      EXPECT_EQ(steps[1].kernel, "strata:view");
    }
    if (between == "QuantizeLinear") {
      EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
    }
  }
}

TEST(OnednnConv, ConvolutionChainsKeepTheirLayoutBetweenConvolutions) {
  std::mt19937 rng(11);
  GraphBuilder b;
  b.input("x", {1, 16, 12, 12});
  b.constant("w1", random_tensor(rng, {32, 16, 3, 3}));
  b.constant("w2", random_tensor(rng, {32, 32, 1, 1}));
  b.node("Conv", {"x", "w1"}, {"h"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
  b.node("Conv", {"h", "w2"}, {"y"});
  b.output("y");
  const ir::Graph graph = b.build();
  const std::vector<Tensor> inputs = {random_tensor(rng, {1, 16, 12, 12})};
  for (auto policy : {kernels::LayoutPolicy::kChannelsLast, kernels::LayoutPolicy::kBlocked}) {
    const std::vector<runtime::StepInfo> steps =
        expect_fast_matches_reference(graph, inputs, policy);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].layout,
              policy == kernels::LayoutPolicy::kBlocked ? native_blocked_name() : "nhwc");
    // h is read as written; only the graph output may be converted (to plain, for the caller).
    for (const std::string& c : steps[1].conversions) EXPECT_EQ(c.rfind("output 0", 0), 0u) << c;
    EXPECT_EQ(steps[1].conversions.empty(), steps[1].layout == "nchw");
  }
}

}  // namespace
}  // namespace strata::test
