#include "passes/fuse_conv.h"

#include <gtest/gtest.h>

#include "ops/fused_activation.h"
#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

std::string attr_string(const ir::Node& n, const char* name) {
  auto it = n.attributes.find(name);
  return it == n.attributes.end() ? "" : it->second.s;
}

TEST(FuseConv, ResidualAddAndReluBecomeOneNode) {
  std::mt19937 rng(1);
  GraphBuilder g;
  g.input("x", {1, 4, 5, 5});
  g.constant("w1", random_tensor(rng, {4, 4, 3, 3}));
  g.constant("w2", random_tensor(rng, {4, 4, 1, 1}));
  g.node("Conv", {"x", "w1"}, {"a"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
  g.node("Relu", {"a"}, {"r"});
  g.node("Conv", {"r", "w2"}, {"b"});
  g.node("Add", {"x", "b"}, {"s"});  // the residual on the left: Add is commutative
  g.node("Relu", {"s"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_conv(after), 2u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedConv", "FusedConv"}));
  EXPECT_EQ(after.nodes[1].fused_from, (std::vector<std::string>{"b_node", "s_node", "y_node"}));
  EXPECT_EQ(after.nodes[1].inputs.size(), 4u);  // X, W, no B, Z
  EXPECT_EQ(attr_string(after.nodes[0], "activation"), "Relu");
  expect_same_outputs(before, after, {random_tensor(rng, {1, 4, 5, 5})});
}

// Caffe2's exports write residuals as a Sum of two inputs (light_resnet50's 16); a Sum of three
// stays (opset 6: Sum takes no broadcasting either way).
TEST(FuseConv, TwoInputSumIsAResidualAdd) {
  std::mt19937 rng(4);
  GraphBuilder g(6);
  g.input("x", {1, 4, 5, 5});
  g.constant("w", random_tensor(rng, {4, 4, 1, 1}));
  g.node("Conv", {"x", "w"}, {"a"});
  g.node("Sum", {"a", "x"}, {"s"});
  g.node("Relu", {"s"}, {"r"});
  g.node("Conv", {"r", "w"}, {"b"});
  g.node("Sum", {"b", "x", "r"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_conv(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedConv", "Conv", "Sum"}));
  EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"a_node", "s_node", "r_node"}));
  EXPECT_EQ(after.nodes[0].inputs.size(), 4u);  // X, W, no B, Z
  expect_same_outputs(before, after, {random_tensor(rng, {1, 4, 5, 5})});
}

TEST(FuseConv, SiluClipAndHardSigmoidActivations) {
  std::mt19937 rng(2);
  GraphBuilder g(13);
  g.input("x", {1, 3, 4, 4});
  g.constant("w", random_tensor(rng, {3, 3, 1, 1}));
  g.constant("lo", Tensor::from<float>({}, {0.0f}));
  g.constant("hi", Tensor::from<float>({}, {0.5f}));
  g.node("Conv", {"x", "w"}, {"a"});
  g.node("Sigmoid", {"a"}, {"s"});
  g.node("Mul", {"a", "s"}, {"silu"});
  g.node("Conv", {"silu", "w"}, {"b"});
  g.node("Clip", {"b", "lo", "hi"}, {"clip"});
  g.node("Conv", {"clip", "w"}, {"c"});
  g.node("HardSigmoid", {"c"}, {"y"}).attributes["alpha"] = attr_float(0.3f);
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_conv(after), 3u);
  ASSERT_EQ(after.nodes.size(), 3u);
  EXPECT_EQ(attr_string(after.nodes[0], "activation"), "Silu");
  EXPECT_EQ(attr_string(after.nodes[1], "activation"), "Clip");
  EXPECT_EQ(attr_string(after.nodes[2], "activation"), "HardSigmoid");
  expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 4, 4})});
}

TEST(FuseConv, StopsAtValuesOthersReadAndAtGraphOutputs) {
  std::mt19937 rng(3);
  GraphBuilder g;
  g.input("x", {1, 2, 3, 3});
  g.constant("w", random_tensor(rng, {2, 2, 1, 1}));
  g.node("Conv", {"x", "w"}, {"a"});
  g.node("Relu", {"a"}, {"r"});
  g.node("Neg", {"a"}, {"n"});  // a has two readers
  g.node("Conv", {"x", "w"}, {"b"});
  g.node("Relu", {"b"}, {"rb"});
  g.output("r");
  g.output("n");
  g.output("b");  // b is an output itself
  g.output("rb");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fuse_conv(graph), 0u);
}

}  // namespace
}  // namespace strata::test

namespace strata::test {
namespace {

// torch's hard-swish before opset 14: x * HardSigmoid(x, alpha 1/6, beta 1/2) (MobileNetV3).
TEST(FuseConv, ExportedHardSwishIsOneActivation) {
  std::mt19937 rng(3);
  GraphBuilder g(11);
  g.input("x", {1, 3, 5, 5});
  g.constant("w", random_tensor(rng, {4, 3, 3, 3}));
  g.node("Conv", {"x", "w"}, {"c"});
  ir::Node& gate = g.node("HardSigmoid", {"c"}, {"h"});
  gate.attributes["alpha"] = attr_float(1.0f / 6);
  gate.attributes["beta"] = attr_float(0.5f);
  g.node("Mul", {"c", "h"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_conv(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedConv"}));
  EXPECT_EQ(attr_string(after.nodes[0], "activation"), "HardSwish");
  expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 5, 5})});
}

}  // namespace
}  // namespace strata::test
