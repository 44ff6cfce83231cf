#include "passes/fuse_qdq.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x (uint8) → DequantizeLinear → Conv (weights and bias behind DequantizeLinear) → QuantizeLinear,
// as ONNX Runtime's quantizer writes it; the bias scale is `bias_scale` (x_scale · w_scale is
// 0.02 · 0.01).
ir::Graph qdq_conv(std::mt19937& rng, float bias_scale, bool second_reader, float y_scale = 0.5f) {
  GraphBuilder g(13);
  g.input("xq", {1, 4, 6, 6}, DType::kU8);
  g.constant("xs", Tensor::from<float>({}, {0.02f}));
  g.constant("xz", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  Tensor w = Tensor::zeros(DType::kI8, {8, 4, 3, 3});
  std::uniform_int_distribution<int> weight(-127, 127);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(weight(rng));
  g.constant("wq", std::move(w));
  g.constant("ws", Tensor::from<float>({}, {0.01f}));
  g.constant("bq", Tensor::from<int32_t>({8}, {100, -200, 300, 0, 5, -5, 1000, -1000}));
  g.constant("bs", Tensor::from<float>({}, {bias_scale}));
  g.constant("ys", Tensor::from<float>({}, {y_scale}));
  g.constant("yz", Tensor::from<uint8_t>({}, {uint8_t(10)}));
  g.node("DequantizeLinear", {"xq", "xs", "xz"}, {"x"});
  g.node("DequantizeLinear", {"wq", "ws"}, {"w"});
  g.node("DequantizeLinear", {"bq", "bs"}, {"b"});
  g.node("Conv", {"x", "w", "b"}, {"c"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
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

TEST(FuseQdq, DequantizeConvQuantizeBecomesQLinearConv) {
  std::mt19937 rng(3);
  const ir::Graph before = qdq_conv(rng, 0.02f * 0.01f, false);
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_qdq(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"QLinearConv"}));
  EXPECT_EQ(after.nodes[0].fused_from,
            (std::vector<std::string>{"x_node", "w_node", "b_node", "c_node", "yq_node"}));
  EXPECT_EQ(after.nodes[0].inputs.size(), 9u);  // x, scale, zero point (w's made 0), y's, B
  // The same integers: the requantization is exact but for values at a rounding tie.
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const Tensor x = random_u8(rng, {1, 4, 6, 6});
  const SessionResult a = run_session(before, {x}, reference);
  const SessionResult b = run_session(after, {x}, reference);
  const std::vector<double> ya = a.outputs[0].to_double(), yb = b.outputs[0].to_double();
  int64_t differ = 0;
  for (size_t i = 0; i < ya.size(); ++i) {
    EXPECT_LE(std::abs(ya[i] - yb[i]), 1) << i;
    differ += ya[i] != yb[i];
  }
  EXPECT_LE(differ, 2);
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
  std::uniform_int_distribution<int> weight(-127, 127);
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
  runtime::SessionOptions reference;
  reference.fast_kernels = false;
  const Tensor a = random_u8(rng, {2, 5, 16});
  const std::vector<double> ya = run_session(before, {a}, reference).outputs[0].to_double();
  const std::vector<double> yb = run_session(after, {a}, reference).outputs[0].to_double();
  int64_t differ = 0;
  for (size_t i = 0; i < ya.size(); ++i) {
    EXPECT_LE(std::abs(ya[i] - yb[i]), 1) << i;
    differ += ya[i] != yb[i];
  }
  EXPECT_LE(differ, 2);
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
