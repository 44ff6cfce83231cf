#include "passes/fuse_matmul.h"

#include <gtest/gtest.h>

#include <numbers>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// torch's export of nn.GELU: x * (1 + erf(x / sqrt 2)) * 0.5
void add_gelu(GraphBuilder& g, const std::string& x, const std::string& y) {
  g.constant(y + "_sqrt2", Tensor::from<float>({}, {float(std::numbers::sqrt2)}));
  g.constant(y + "_one", Tensor::from<float>({}, {1.0f}));
  g.constant(y + "_half", Tensor::from<float>({}, {0.5f}));
  g.node("Div", {x, y + "_sqrt2"}, {y + "_div"});
  g.node("Erf", {y + "_div"}, {y + "_erf"});
  g.node("Add", {y + "_erf", y + "_one"}, {y + "_add"});
  g.node("Mul", {x, y + "_add"}, {y + "_mul"});
  g.node("Mul", {y + "_mul", y + "_half"}, {y});
}

TEST(FuseMatMul, BiasAndExportedGeluBecomeOneNode) {
  std::mt19937 rng(1);
  GraphBuilder g(13);
  g.input("x", {2, 3, 8});
  g.constant("w", random_tensor(rng, {8, 6}));
  g.constant("b", random_tensor(rng, {6}));
  g.node("MatMul", {"x", "w"}, {"p"});
  g.node("Add", {"b", "p"}, {"biased"});
  add_gelu(g, "biased", "y");
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_matmul(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedMatMul"}));
  EXPECT_EQ(after.nodes[0].fused_from.size(), 7u);
  EXPECT_EQ(after.nodes[0].attributes.at("activation").s, "Gelu");
  expect_same_outputs(before, after, {random_tensor(rng, {2, 3, 8})});
}

// A MatMul whose output is unnamed has no product to look at (read after fuse_qdq's find).
TEST(FuseMatMul, LeavesAMatMulWhoseOutputIsUnnamed) {
  std::mt19937 rng(2);
  GraphBuilder g(13);
  g.input("x", {2, 8});
  g.constant("w", random_tensor(rng, {8, 6}));
  g.node("MatMul", {"x", "w"}, {"p"});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  graph.nodes[0].outputs[0] = ir::kNoValue;
  EXPECT_EQ(passes::fuse_matmul(graph), 0u);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "Relu"}));
}

TEST(FuseMatMul, ScaleAndMaskOfAttentionScores) {
  std::mt19937 rng(2);
  GraphBuilder g(13);
  g.input("q", {1, 2, 5, 4});
  g.input("k", {1, 2, 4, 5});
  g.constant("scale", Tensor::from<float>({}, {2.0f}));
  g.constant("mask", random_tensor(rng, {5, 5}));
  g.node("MatMul", {"q", "k"}, {"s"});
  g.node("Div", {"s", "scale"}, {"scaled"});
  g.node("Add", {"scaled", "mask"}, {"masked"});
  g.node("Softmax", {"masked"}, {"y"}).attributes["axis"] = attr_int(-1);
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_matmul(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedMatMul", "Softmax"}));
  EXPECT_FLOAT_EQ(after.nodes[0].attributes.at("alpha").f, 0.5f);
  expect_same_outputs(before, after,
                      {random_tensor(rng, {1, 2, 5, 4}), random_tensor(rng, {1, 2, 4, 5})});
}

TEST(FuseMatMul, ResidualAfterBias) {
  std::mt19937 rng(3);
  GraphBuilder g(13);
  g.input("x", {4, 6});
  g.constant("w", random_tensor(rng, {6, 6}));
  g.constant("b", random_tensor(rng, {6}));
  g.node("MatMul", {"x", "w"}, {"p"});
  g.node("Add", {"p", "b"}, {"biased"});
  g.node("Add", {"x", "biased"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_matmul(after), 1u);
  ASSERT_EQ(after.nodes.size(), 1u);
  EXPECT_EQ(after.nodes[0].inputs.size(), 4u);
  expect_same_outputs(before, after, {random_tensor(rng, {4, 6})});
}

TEST(FuseMatMul, AddendsThatWouldGrowTheProductStay) {
  std::mt19937 rng(4);
  GraphBuilder g(13);
  g.input("x", {1, 6});
  g.constant("w", random_tensor(rng, {6, 6}));
  g.constant("big", random_tensor(rng, {3, 6}));  // broadcasting grows [1,6] to [3,6]
  g.node("MatMul", {"x", "w"}, {"p"});
  g.node("Add", {"p", "big"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fuse_matmul(graph), 0u);
}

// torch.baddbmm(zeros, q, k^T, alpha=s) as exported: the product, a scale and an Add of a
// constant of zeros the product's size, which the fused node absorbs without reading.
TEST(FuseMatMul, AConstantOfZerosIsAbsorbedNotRead) {
  std::mt19937 rng(5);
  GraphBuilder g(13);
  g.input("q", {4, 6, 3});
  g.input("kt", {4, 3, 6});
  g.constant("scale", Tensor::from<float>({}, {0.5f}));
  g.constant("zeros", Tensor::zeros(DType::kF32, {4, 6, 6}));
  g.node("MatMul", {"q", "kt"}, {"p"});
  g.node("Mul", {"p", "scale"}, {"s"});
  g.node("Add", {"zeros", "s"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_matmul(after), 1u);
  ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedMatMul"}));
  EXPECT_EQ(after.nodes[0].fused_from.size(), 3u);
  ASSERT_EQ(after.nodes[0].inputs.size(), 3u);
  EXPECT_EQ(after.nodes[0].inputs[2], ir::kNoValue);  // no bias read
  expect_same_outputs(before, after,
                      {random_tensor(rng, {4, 6, 3}), random_tensor(rng, {4, 3, 6})});
}

}  // namespace
}  // namespace strata::test
