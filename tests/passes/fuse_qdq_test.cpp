#include "passes/fuse_qdq.h"

#include <gtest/gtest.h>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_products.h"
#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x (uint8) → DequantizeLinear → Conv (weights and bias behind DequantizeLinear) → QuantizeLinear,
// as ONNX Runtime's quantizer writes it; the bias scale is `bias_scale` (x_scale · w_scale is
// 0.02 · 0.01). Weights up to ±w_max: 64 (7 bits) is exact on oneDNN's int8 kernels on every CPU.
// `group` 4: a depthwise convolution (two output channels per input channel).
ir::Graph qdq_conv(std::mt19937& rng, float bias_scale, bool second_reader, float y_scale = 0.5f,
                   int w_max = 64, DType w_type = DType::kI8, int64_t group = 1,
                   int64_t outputs = 8) {
  GraphBuilder g(13);
  g.input("xq", {1, 4, 6, 6}, DType::kU8);
  g.constant("xs", Tensor::from<float>({}, {0.02f}));
  g.constant("xz", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  Tensor w = Tensor::zeros(w_type, {outputs, 4 / group, 3, 3});
  std::uniform_int_distribution<int> weight(w_type == DType::kI8 ? -w_max : 0, w_max);
  for (int64_t i = 0; i < w.numel(); ++i) {
    if (w_type == DType::kI8)
      w.data<int8_t>()[i] = int8_t(weight(rng));
    else
      w.data<uint8_t>()[i] = uint8_t(weight(rng));
  }
  g.constant("wq", std::move(w));
  g.constant("ws", Tensor::from<float>({}, {0.01f}));
  const std::vector<int32_t> bias = {100, -200, 300, 0, 5, -5, 1000, -1000};
  g.constant("bq", Tensor::from<int32_t>(
                       {outputs}, std::vector<int32_t>(bias.begin(), bias.begin() + outputs)));
  g.constant("bs", Tensor::from<float>({}, {bias_scale}));
  g.constant("ys", Tensor::from<float>({}, {y_scale}));
  g.constant("yz", Tensor::from<uint8_t>({}, {uint8_t(10)}));
  g.node("DequantizeLinear", {"xq", "xs", "xz"}, {"x"});
  g.node("DequantizeLinear", {"wq", "ws"}, {"w"});
  g.node("DequantizeLinear", {"bq", "bs"}, {"b"});
  ir::Node& conv = g.node("Conv", {"x", "w", "b"}, {"c"});
  conv.attributes["pads"] = attr_ints({1, 1, 1, 1});
  if (group != 1) conv.attributes["group"] = attr_int(group);
  g.node("QuantizeLinear", {"c", "ys", "yz"}, {"yq"});
  g.output("yq");
  if (second_reader) {
    g.node("Relu", {"c"}, {"r"});
    g.output("r");
  }
  return g.build();
}

Tensor random_u8(std::mt19937& rng, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(DType::kU8, shape);
  std::uniform_int_distribution<int> dist(0, 255);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = uint8_t(dist(rng));
  return t;
}

// The same integers before and after the pass on the reference kernels: the requantization is
// exact but for values at a rounding tie.
void expect_same_integers(const ir::Graph& before, const ir::Graph& after, const Tensor& input) {
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const std::vector<double> ya = run_session(before, {input}, reference).outputs[0].to_double();
  const std::vector<double> yb = run_session(after, {input}, reference).outputs[0].to_double();
  ASSERT_EQ(ya.size(), yb.size());
  int64_t differ = 0;
  for (size_t i = 0; i < ya.size(); ++i) {
    EXPECT_LE(std::abs(ya[i] - yb[i]), 1) << i;
    differ += ya[i] != yb[i];
  }
  EXPECT_LE(differ, 2);
}

TEST(FuseQdq, DequantizeConvQuantizeBecomesQLinearConv) {
  std::mt19937 rng(3);
  const ir::Graph before = qdq_conv(rng, 0.02f * 0.01f, false);
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_qdq(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearConv"}));
  EXPECT_EQ(after.nodes[0].fused_from,
            (std::vector<std::string>{"x_node", "w_node", "b_node", "c_node", "yq_node"}));
  EXPECT_EQ(after.nodes[0].inputs.size(), 9u);  // x, scale, zero point (w's made 0), y's, B
  expect_same_integers(before, after, random_u8(rng, {1, 4, 6, 6}));
}

// A product no int8 kernel would compute exactly here stays in float32: uint8 weights (oneDNN
// and strata's exact int8 convolutions take int8 weights only) everywhere, full-range int8 weights
// of a grouped convolution that is not depthwise (two groups of two channels) on a CPU without
// VNNI (the exact convolutions take group 1 and depthwise ones only).
TEST(FuseQdq, LeavesProductsNoInt8KernelComputesExactly) {
  std::mt19937 rng(8);
  ir::Graph unsigned_weights = qdq_conv(rng, 0.02f * 0.01f, false, 0.5f, 255, DType::kU8);
  std::string left;
  EXPECT_EQ(passes::fuse_qdq(unsigned_weights, &left), 0u);
  EXPECT_EQ(left,
            "1 QDQ product left in float32, node 'c_node': its weights are uint8 (oneDNN's "
            "int8 kernels and strata's exact int8 convolution take int8 weights)");
  ir::Graph grouped = qdq_conv(rng, 0.02f * 0.01f, false, 0.5f, 127, DType::kI8, 2);
  const Tensor& w = *grouped.values[size_t(grouped.find_value("wq"))].constant;
  const std::string problem = kernels::int8_product_problem(w, 0, DType::kU8);
  left.clear();
  EXPECT_EQ(passes::fuse_qdq(grouped, &left), problem.empty() ? 1u : 0u);
  EXPECT_EQ(left, problem.empty() ? ""
                                  : "1 QDQ product left in float32, node 'c_node': " + problem +
                                        "; strata's exact int8 convolution " +
                                        kernels::exact_int8_conv_problem(w, 2) +
                                        ", and its exact int8 depthwise convolution " +
                                        kernels::exact_int8_depthwise_conv_problem(w, 2));
  // Whatever the CPU, the rule itself: such weights are exact with VNNI only, and neither exact
  // convolution takes a grouped one that is not depthwise.
  EXPECT_EQ(kernels::int8_product_problem(w, 0, DType::kU8, true), "");
  EXPECT_NE(kernels::int8_product_problem(w, 0, DType::kU8, false), "");
  EXPECT_EQ(kernels::int8_conv_route(w, 2, DType::kU8, false).kernel,
            kernels::Int8ConvKernel::kNone);
  EXPECT_NE(kernels::exact_int8_conv_problem(w, 2).find("group 1 only"), std::string::npos);
  if (kernels::cpu::int8_gemm_available()) {
    EXPECT_NE(kernels::exact_int8_depthwise_conv_problem(w, 2).find(
                  "takes depthwise convolutions with one output channel per group only (this one "
                  "has 2 groups of 2 input and 4 output channels)"),
              std::string::npos)
        << kernels::exact_int8_depthwise_conv_problem(w, 2);
  }
}

// Without VNNI a QDQ convolution (`before`, `group` groups, input [1, 4, 6, 6]) whose weights
// oneDNN would saturate is fused all the same where strata's exact int8 kernel `exact` takes it
// (AVX2), and runs on `kernel` there, equal to the reference kernel.
void expect_saturating_conv_fused_for(const ir::Graph& before, std::mt19937& rng, int64_t group,
                                      kernels::Int8ConvKernel exact, const std::string& kernel) {
  const Tensor& w = *before.values[size_t(before.find_value("wq"))].constant;
  ASSERT_NE(kernels::int8_product_problem(w, 0, DType::kU8, false), "");
  const kernels::Int8ConvRoute route = kernels::int8_conv_route(w, group, DType::kU8, false);
  const bool exact_kernel = kernels::cpu::int8_gemm_available();
  EXPECT_EQ(route.kernel, exact_kernel ? exact : kernels::Int8ConvKernel::kNone);
  ir::Graph after = before;
  std::string left;
  const bool fused = exact_kernel || kernels::int8_product_problem(w, 0, DType::kU8).empty();
  EXPECT_EQ(passes::fuse_qdq(after, &left), fused ? 1u : 0u);
  if (!fused) return;
  EXPECT_EQ(left, "");
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearConv"}));
  const Tensor x = random_u8(rng, {1, 4, 6, 6});
  expect_same_integers(before, after, x);
  runtime::SessionOptions fast, reference;
  reference.fast_kernels = false;
  const SessionResult f = run_session(after, {x}, fast);
  const SessionResult r = run_session(after, {x}, reference);
  EXPECT_EQ(f.outputs[0].to_double(), r.outputs[0].to_double());
  if (kernels::int8_product_problem(w, 0, DType::kU8).empty()) return;  // VNNI: oneDNN's
  EXPECT_EQ(f.steps[0].kernel, kernel) << f.steps[0].reason;
}

// A depthwise convolution: 4 groups of one channel in and out.
TEST(FuseQdq, SaturatingDepthwiseConvsBecomeQLinearConvForTheExactKernel) {
  std::mt19937 rng(10);
  expect_saturating_conv_fused_for(qdq_conv(rng, 0.02f * 0.01f, false, 0.5f, 127, DType::kI8, 4, 4),
                                   rng, 4, kernels::Int8ConvKernel::kExactDepthwise,
                                   "cpu:int8_depthwise_conv:avx2");
}

TEST(FuseQdq, SaturatingConvsBecomeQLinearConvForTheExactKernel) {
  std::mt19937 rng(9);
  expect_saturating_conv_fused_for(qdq_conv(rng, 0.02f * 0.01f, false, 0.5f, 127), rng, 1,
                                   kernels::Int8ConvKernel::kExactGemm, "cpu:int8_conv:avx2");
}

TEST(FuseQdq, LeavesBiasesInOtherUnitsAndSharedOutputs) {
  std::mt19937 rng(4);
  ir::Graph other_units = qdq_conv(rng, 0.001f, false);
  EXPECT_EQ(passes::fuse_qdq(other_units), 0u);
  ir::Graph shared = qdq_conv(rng, 0.02f * 0.01f, true);
  EXPECT_EQ(passes::fuse_qdq(shared), 0u);
}

TEST(FuseQdq, DequantizeMatMulQuantizeBecomesQLinearMatMul) {
  std::mt19937 rng(7);
  GraphBuilder g(13);
  g.input("aq", {2, 5, 16}, DType::kU8);
  g.constant("as", Tensor::from<float>({}, {0.05f}));
  g.constant("az", Tensor::from<uint8_t>({}, {uint8_t(120)}));
  Tensor w = Tensor::zeros(DType::kI8, {16, 6});
  std::uniform_int_distribution<int> weight(-64, 64);  // 7 bits: exact on every CPU
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(weight(rng));
  g.constant("bq", std::move(w));
  g.constant("bs", Tensor::from<float>({6}, {0.01f, 0.02f, 0.01f, 0.03f, 0.01f, 0.02f}));
  g.constant("ys", Tensor::from<float>({}, {0.4f}));
  g.constant("yz", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  g.node("DequantizeLinear", {"aq", "as", "az"}, {"a"});
  g.node("DequantizeLinear", {"bq", "bs"}, {"b"}).attributes["axis"] = attr_int(1);
  g.node("MatMul", {"a", "b"}, {"p"});
  g.node("QuantizeLinear", {"p", "ys", "yz"}, {"yq"});
  g.output("yq");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_qdq(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearMatMul"}));
  EXPECT_EQ(after.nodes[0].fused_from,
            (std::vector<std::string>{"a_node", "b_node", "p_node", "yq_node"}));
  expect_same_integers(before, after, random_u8(rng, {2, 5, 16}));
}

// x (uint8) → DequantizeLinear → Gemm (int8 weights [N, K] with transB = 1 and a scale per output
// column, as torch's Linear exports them, or [K, N] with one scale; an int32 bias behind
// DequantizeLinear unless `float_bias`) → QuantizeLinear. Weights within ±`weight_limit`: 64
// keeps them exact in oneDNN's saturating kernels on CPUs without VNNI, 127 does not.
ir::Graph qdq_gemm(std::mt19937& rng, bool trans_b, float alpha, bool float_bias,
                   int weight_limit = 64) {
  const int64_t k = 24, n = 7;
  GraphBuilder g(13);
  g.input("aq", {3, k}, DType::kU8);
  g.constant("as", Tensor::from<float>({}, {0.05f}));
  g.constant("az", Tensor::from<uint8_t>({}, {uint8_t(120)}));
  Tensor w = Tensor::zeros(DType::kI8, trans_b ? std::vector<int64_t>{n, k} : std::vector{k, n});
  std::uniform_int_distribution<int> weight(-weight_limit, weight_limit);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(weight(rng));
  g.constant("bq", std::move(w));
  std::vector<float> scales = {0.01f, 0.02f, 0.01f, 0.03f, 0.01f, 0.02f, 0.015f};
  if (!trans_b) scales = {0.02f};
  g.constant("bs", trans_b ? Tensor::from<float>({n}, scales) : Tensor::from<float>({}, scales));
  g.constant("cq", Tensor::from<int32_t>({n}, {900, -2000, 0, 35, -350, 7000, -1}));
  std::vector<float> c_scales;
  for (float s : scales) c_scales.push_back(0.05f * s);
  g.constant("cs",
             trans_b ? Tensor::from<float>({n}, c_scales) : Tensor::from<float>({}, c_scales));
  g.constant("c_float", Tensor::from<float>({n}, {0.5f, -1, 0, 2, 0.25f, -0.5f, 1}));
  g.constant("ys", Tensor::from<float>({}, {0.4f}));
  g.constant("yz", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  g.node("DequantizeLinear", {"aq", "as", "az"}, {"a"});
  g.node("DequantizeLinear", {"bq", "bs"}, {"b"}).attributes["axis"] = attr_int(0);
  g.node("DequantizeLinear", {"cq", "cs"}, {"c"}).attributes["axis"] = attr_int(0);
  ir::Node& gemm = g.node("Gemm", {"a", "b", float_bias ? "c_float" : "c"}, {"p"});
  gemm.attributes["transB"] = attr_int(trans_b ? 1 : 0);
  gemm.attributes["alpha"] = attr_float(alpha);
  g.node("QuantizeLinear", {"p", "ys", "yz"}, {"yq"});
  g.output("yq");
  return g.build();
}

TEST(FuseQdq, DequantizeGemmQuantizeBecomesQLinearGemm) {
  std::mt19937 rng(9);
  for (bool trans_b : {true, false}) {
    SCOPED_TRACE(trans_b ? "transB 1, a scale per column" : "transB 0, one scale");
    const ir::Graph before = qdq_gemm(rng, trans_b, 1.0f, false);
    ir::Graph after = before;
    EXPECT_EQ(passes::fuse_qdq(after), 1u);
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearGemm"}));
    EXPECT_EQ(after.nodes[0].domain, "strata");
    EXPECT_EQ(after.nodes[0].fused_from,
              (std::vector<std::string>{"a_node", "b_node", "c_node", "p_node", "yq_node"}));
    const Tensor a = random_u8(rng, {3, 24});
    expect_same_integers(before, after, a);
    // oneDNN's int8 matmul adds the bias to the sums before requantizing, as the reference does.
    const SessionResult fast = run_session(after, {a}, runtime::SessionOptions{});
    ASSERT_EQ(fast.steps.size(), 1u);
    EXPECT_EQ(fast.steps[0].kernel.rfind("onednn:", 0), 0u) << fast.steps[0].kernel;
    runtime::SessionOptions reference;
    reference.fast_kernels = false;
    EXPECT_EQ(fast.outputs[0].to_double(),
              run_session(after, {a}, reference).outputs[0].to_double());
  }
}

// Weights oneDNN's int8 matmul would saturate without VNNI: fused all the same where strata's
// exact int8 GEMM takes them (AVX2), and its results equal the reference kernel's.
TEST(FuseQdq, SaturatingGemmsBecomeQLinearGemmForTheExactGemm) {
  std::mt19937 rng(12);
  for (bool trans_b : {true, false}) {
    SCOPED_TRACE(trans_b ? "transB 1, a scale per column" : "transB 0, one scale");
    const ir::Graph before = qdq_gemm(rng, trans_b, 1.0f, false, 127);
    const Tensor& w = *before.values[size_t(before.find_value("bq"))].constant;
    const int64_t columns_axis = trans_b ? 0 : 1;
    ASSERT_NE(kernels::int8_product_problem(w, columns_axis, DType::kU8, false), "");
    const bool exact_gemm = kernels::exact_int8_matmul_problem(w, columns_axis).empty();
    EXPECT_EQ(exact_gemm, kernels::cpu::int8_gemm_available());
    const bool fused =
        exact_gemm || kernels::int8_product_problem(w, columns_axis, DType::kU8).empty();
    ir::Graph after = before;
    std::string left;
    EXPECT_EQ(passes::fuse_qdq(after, &left), fused ? 1u : 0u);
    if (!fused) continue;
    EXPECT_EQ(left, "");
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearGemm"}));
    const Tensor a = random_u8(rng, {3, 24});
    expect_same_integers(before, after, a);
    const SessionResult fast = run_session(after, {a}, runtime::SessionOptions{});
    runtime::SessionOptions reference;
    reference.fast_kernels = false;
    EXPECT_EQ(fast.outputs[0].to_double(),
              run_session(after, {a}, reference).outputs[0].to_double());
    if (kernels::int8_product_problem(w, columns_axis, DType::kU8).empty()) continue;  // VNNI
    EXPECT_EQ(fast.steps[0].kernel, "cpu:int8_gemm:avx2") << fast.steps[0].reason;
  }
}

TEST(FuseQdq, LeavesGemmsWithAScaleOrAFloatBias) {
  std::mt19937 rng(10);
  ir::Graph scaled = qdq_gemm(rng, true, 0.5f, false);
  EXPECT_EQ(passes::fuse_qdq(scaled), 0u);
  ir::Graph float_bias = qdq_gemm(rng, true, 1.0f, true);
  EXPECT_EQ(passes::fuse_qdq(float_bias), 0u);
}

// DequantizeLinear(a), DequantizeLinear(b) → Add → QuantizeLinear: a residual add of a uint8 and an
// int8 tensor of shape `b_shape` into uint8.
ir::Graph qdq_add(const std::vector<int64_t>& b_shape, bool per_axis_b) {
  GraphBuilder g(13);
  g.input("aq", {2, 3, 5, 7}, DType::kU8);
  g.input("bq", b_shape, DType::kI8);
  g.constant("as", Tensor::from<float>({}, {0.05f}));
  g.constant("az", Tensor::from<uint8_t>({}, {uint8_t(120)}));
  g.constant("bs", per_axis_b ? Tensor::from<float>({3}, {0.03f, 0.02f, 0.1f})
                              : Tensor::from<float>({}, {0.03f}));
  g.constant("bz", per_axis_b ? Tensor::from<int8_t>({3}, {-3, 0, 4})
                              : Tensor::from<int8_t>({}, {int8_t(-3)}));
  g.constant("cs", Tensor::from<float>({}, {0.04f}));
  g.constant("cz", Tensor::from<uint8_t>({}, {uint8_t(101)}));
  g.node("DequantizeLinear", {"aq", "as", "az"}, {"a"});
  g.node("DequantizeLinear", {"bq", "bs", "bz"}, {"b"});
  g.node("Add", {"a", "b"}, {"s"});
  g.node("QuantizeLinear", {"s", "cs", "cz"}, {"cq"});
  g.output("cq");
  return g.build();
}

Tensor random_i8(std::mt19937& rng, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(DType::kI8, shape);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int8_t>()[i] = int8_t(dist(rng));
  return t;
}

TEST(FuseQdq, DequantizeAddQuantizeBecomesQLinearAdd) {
  std::mt19937 rng(11);
  const ir::Graph before = qdq_add({2, 3, 5, 7}, false);
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_qdq(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearAdd"}));
  EXPECT_EQ(after.nodes[0].domain, "strata");
  EXPECT_EQ(after.nodes[0].fused_from,
            (std::vector<std::string>{"a_node", "b_node", "s_node", "cq_node"}));
  // The same float32 steps as the three ops: equal to the bit, saturation included (the range of
  // the sums, about ±10, is wider than the output's ±4).
  const std::vector<Tensor> inputs = {random_u8(rng, {2, 3, 5, 7}), random_i8(rng, {2, 3, 5, 7})};
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const std::vector<double> expected =
      run_session(before, inputs, reference).outputs[0].to_double();
  EXPECT_EQ(run_session(after, inputs, reference).outputs[0].to_double(), expected);
  const SessionResult fast = run_session(after, inputs, runtime::SessionOptions{});
  EXPECT_EQ(fast.steps[0].kernel.rfind("cpu:", 0), 0u) << fast.steps[0].kernel;
  EXPECT_EQ(fast.outputs[0].to_double(), expected);
}

TEST(FuseQdq, LeavesAddsThatBroadcastOrHaveScalesPerAxis) {
  ir::Graph broadcast = qdq_add({1, 3, 1, 1}, false);
  EXPECT_EQ(passes::fuse_qdq(broadcast), 0u);
  ir::Graph per_axis = qdq_add({2, 3, 5, 7}, true);
  per_axis.nodes[1].attributes["axis"] = attr_int(1);
  EXPECT_EQ(passes::fuse_qdq(per_axis), 0u);
}

// DequantizeLinear → MaxPool (3×3, stride 2, padded: a CNN's stem) → QuantizeLinear of `type`
// data, the quantizer's scale and zero point `y_scale` and `y_zero` (the dequantizer's: 0.05, 7).
ir::Graph qdq_max_pool(DType type, float y_scale, int y_zero) {
  GraphBuilder g(13);
  g.input("xq", {1, 8, 9, 9}, type);
  const auto zero = [&](int value) {
    return type == DType::kU8 ? Tensor::from<uint8_t>({}, {uint8_t(value)})
                              : Tensor::from<int8_t>({}, {int8_t(value)});
  };
  g.constant("xs", Tensor::from<float>({}, {0.05f}));
  g.constant("xz", zero(7));
  g.constant("ys", Tensor::from<float>({}, {y_scale}));
  g.constant("yz", zero(y_zero));
  g.node("DequantizeLinear", {"xq", "xs", "xz"}, {"x"});
  ir::Node& pool = g.node("MaxPool", {"x"}, {"p"});
  pool.attributes["kernel_shape"] = attr_ints({3, 3});
  pool.attributes["strides"] = attr_ints({2, 2});
  pool.attributes["pads"] = attr_ints({1, 1, 1, 1});
  g.node("QuantizeLinear", {"p", "ys", "yz"}, {"yq"});
  g.output("yq");
  return g.build();
}

// The maximum commutes with the dequantization, and the same scale and zero point give the 8-bit
// value back: the pool runs on the 8-bit data (oneDNN's integer pooling), equal to the three ops.
TEST(FuseQdq, DequantizeMaxPoolQuantizeBecomesAMaxPoolOf8BitValues) {
  std::mt19937 rng(12);
  for (const DType type : {DType::kU8, DType::kI8}) {
    SCOPED_TRACE(dtype_name(type));
    const ir::Graph before = qdq_max_pool(type, 0.05f, 7);
    ir::Graph after = before;
    EXPECT_EQ(passes::fuse_qdq(after), 1u);
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"MaxPool"}));
    EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"x_node", "p_node", "yq_node"}));
    const std::vector<Tensor> inputs = {type == DType::kU8 ? random_u8(rng, {1, 8, 9, 9})
                                                           : random_i8(rng, {1, 8, 9, 9})};
    runtime::SessionOptions reference;
    reference.fast_kernels = false;
    const std::vector<double> expected =
        run_session(before, inputs, reference).outputs[0].to_double();
    EXPECT_EQ(run_session(after, inputs, reference).outputs[0].to_double(), expected);
    for (const kernels::LayoutPolicy layout :
         {kernels::LayoutPolicy::kPlain, kernels::LayoutPolicy::kChannelsLast}) {
      runtime::SessionOptions fast;
      fast.layout = layout;
      const SessionResult f = run_session(after, inputs, fast);
      EXPECT_EQ(f.steps[0].kernel.rfind("onednn:", 0), 0u) << f.steps[0].kernel;
      EXPECT_EQ(f.steps[0].kernel.find("ref"), std::string::npos) << f.steps[0].kernel;
      EXPECT_EQ(f.outputs[0].to_double(), expected);
    }
  }
}

TEST(FuseQdq, LeavesMaxPoolsBetweenOtherScalesOrZeroPoints) {
  ir::Graph other_scale = qdq_max_pool(DType::kU8, 0.1f, 7);
  EXPECT_EQ(passes::fuse_qdq(other_scale), 0u);
  ir::Graph other_zero = qdq_max_pool(DType::kU8, 0.05f, 8);
  EXPECT_EQ(passes::fuse_qdq(other_zero), 0u);
}

// x → DynamicQuantizeLinear → MatMulInteger (constant int8 weights [24, 7]) → Cast → Mul by
// x_scale · w_scale (one w_scale, or one per column) → Add of a constant bias (when `bias`), as
// ONNX Runtime's dynamic quantizer writes each MatMul.
ir::Graph dynamic_matmul(std::mt19937& rng, bool per_column, bool bias, int w_max) {
  const int64_t k = 24, n = 7;
  GraphBuilder g(13);
  g.input("x", {2, 3, k}, DType::kF32);
  Tensor w = Tensor::zeros(DType::kI8, {k, n});
  std::uniform_int_distribution<int> weight(-w_max, w_max);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(weight(rng));
  g.constant("wq", std::move(w));
  g.constant("wz", Tensor::from<int8_t>({}, {int8_t(0)}));
  g.constant("ws", per_column ? Tensor::from<float>(
                                    {n}, {0.011f, 0.02f, 0.013f, 0.03f, 0.017f, 0.02f, 0.015f})
                              : Tensor::from<float>({}, {0.013f}));
  g.constant("bias", Tensor::from<float>({n}, {0.5f, -1.25f, 0, 2, 0.3f, -0.7f, 1}));
  g.node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"});
  g.node("MatMulInteger", {"xq", "wq", "xz", "wz"}, {"sums"});
  g.node("Cast", {"sums"}, {"sums_float"}).attributes["to"] = attr_int(1);
  g.node("Mul", {"xs", "ws"}, {"scale"});
  g.node("Mul", {"sums_float", "scale"}, {"product"});
  if (bias) g.node("Add", {"bias", "product"}, {"y"});
  g.output(bias ? "y" : "product");
  return g.build();
}

TEST(FuseQdq, DynamicallyQuantizedMatMulBecomesMatMulIntegerToFloat) {
  std::mt19937 rng(12);
  // 7-bit weights run on oneDNN's int8 matmul on every CPU; full-range ones, on a CPU without VNNI,
  // on strata's exact int8 GEMM (AVX2) or the reference kernel.
  for (const int w_max : {64, 127}) {
    for (const bool per_column : {false, true}) {
      for (const bool bias : {true, false}) {
        SCOPED_TRACE(std::string(per_column ? "a scale per column" : "one scale") +
                     (bias ? ", bias" : ", no bias") + ", weights to ±" + std::to_string(w_max));
        const ir::Graph before = dynamic_matmul(rng, per_column, bias, w_max);
        ir::Graph after = before;
        EXPECT_EQ(passes::fuse_qdq(after), 1u);
        ASSERT_EQ(op_types(after), (std::vector<std::string>{"DynamicQuantizeLinear", "Mul",
                                                             "MatMulIntegerToFloat"}));
        EXPECT_EQ(after.nodes[2].inputs.size(), bias ? 6u : 5u);
        Tensor x = Tensor::zeros(DType::kF32, {2, 3, 24});
        std::normal_distribution<float> normal(0, 2);
        for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = normal(rng);
        // Cast, Mul and Add in float32 in every kernel: equal to the bit.
        runtime::SessionOptions reference;
        reference.fast_kernels = false;
        const std::vector<double> expected =
            run_session(before, {x}, reference).outputs[0].to_double();
        EXPECT_EQ(run_session(after, {x}, reference).outputs[0].to_double(), expected);
        const SessionResult fast = run_session(after, {x}, runtime::SessionOptions{});
        const Tensor& w = *after.values[size_t(after.find_value("wq"))].constant;
        if (kernels::int8_product_problem(w, 1, DType::kU8).empty()) {
          EXPECT_EQ(fast.steps[2].kernel.rfind("onednn:", 0), 0u) << fast.steps[2].kernel;
          EXPECT_EQ(fast.steps[2].kernel.find(":ref"), std::string::npos) << fast.steps[2].kernel;
        } else if (kernels::cpu::int8_gemm_available()) {
          EXPECT_EQ(fast.steps[2].kernel, "cpu:int8_gemm:avx2");
          EXPECT_NE(fast.steps[2].reason.find("vpmaddubsw"), std::string::npos)
              << fast.steps[2].reason;
        } else {
          EXPECT_EQ(fast.steps[2].kernel, "reference");
        }
        EXPECT_EQ(fast.outputs[0].to_double(), expected);
      }
    }
  }
}

// Found by fuzz_graph (fuse-qdq-matmul-without-input.bin): a MatMul or Conv whose input is
// unnamed, or a DequantizeLinear without data, made the pass read the value at index -1.
TEST(FuseQdq, LeavesNodesWithUnnamedInputs) {
  std::mt19937 rng(8);
  for (size_t node : {size_t(0), size_t(3)}) {  // x's DequantizeLinear, the Conv
    ir::Graph graph = qdq_conv(rng, 0.02f * 0.01f, false);
    graph.nodes[node].inputs[0] = ir::kNoValue;
    EXPECT_EQ(passes::fuse_qdq(graph), 0u);
    EXPECT_EQ(graph.nodes.size(), 5u);
  }
}

// A zero scale is bad input: the pass leaves it, and running names the node that holds it.
TEST(FuseQdq, AZeroScaleIsLeftForTheOpToRefuse) {
  std::mt19937 rng(6);
  ir::Graph graph = qdq_conv(rng, 0.02f * 0.01f, false, /*y_scale=*/0.0f);
  EXPECT_EQ(passes::fuse_qdq(graph), 0u);
  try {
    run_session(graph, {random_u8(rng, {1, 4, 6, 6})}, {});
    ADD_FAILURE() << "a zero scale ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("yq_node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("positive"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::test
