#include "passes/fold_batch_norm.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x → Conv(w, b?) → BatchNormalization → Relu → y
ir::Graph conv_bn(std::mt19937& rng, bool bias, bool bn_constant = true) {
  GraphBuilder g(15);
  g.input("x", {1, 3, 6, 6});
  g.constant("w", random_tensor(rng, {4, 3, 3, 3}));
  if (bias) g.constant("b", random_tensor(rng, {4}));
  Tensor var = random_tensor(rng, {4});
  for (int64_t i = 0; i < 4; ++i) var.data<float>()[i] = 0.5f + std::abs(var.data<float>()[i]);
  g.constant("scale", random_tensor(rng, {4}));
  g.constant("shift", random_tensor(rng, {4}));
  g.constant("mean", random_tensor(rng, {4}));
  if (bn_constant) {
    g.constant("var", var);
  } else {
    g.input("var", {4});
  }
  g.node("Conv", {"x", "w", bias ? "b" : ""}, {"c"});
  g.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"n"})
      .attributes["epsilon"] = attr_float(1e-3f);
  g.node("Relu", {"n"}, {"y"});
  g.output("y");
  return g.build();
}

TEST(FoldBatchNorm, FoldsIntoTheConvWithAndWithoutBias) {
  for (bool bias : {true, false}) {
    std::mt19937 rng(1);
    const ir::Graph before = conv_bn(rng, bias);
    ir::Graph after = before;
    EXPECT_EQ(passes::fold_batch_norm(after), 1u);
    EXPECT_EQ(op_types(after), (std::vector<std::string>{"Conv", "Relu"}));
    EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"c_node", "n_node"}));
    expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 6, 6})});
  }
}

TEST(FoldBatchNorm, LeavesStatisticsKnownOnlyWhileRunning) {
  std::mt19937 rng(2);
  ir::Graph g = conv_bn(rng, true, false);
  EXPECT_EQ(passes::fold_batch_norm(g), 0u);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "BatchNormalization", "Relu"}));
}

// Read after fuse_qdq's find (fuzz_graph): a BatchNormalization whose X is unnamed has no producer
// to look up (the pass read the value at index -1).
TEST(FoldBatchNorm, LeavesABatchNormWithoutInput) {
  std::mt19937 rng(4);
  ir::Graph g = conv_bn(rng, true);
  g.nodes[1].inputs[0] = ir::kNoValue;
  EXPECT_EQ(passes::fold_batch_norm(g), 0u);
  EXPECT_EQ(g.nodes.size(), 3u);
}

TEST(FoldBatchNorm, LeavesAConvOutputThatOthersRead) {
  std::mt19937 rng(3);
  GraphBuilder g(15);
  g.input("x", {1, 2, 4, 4});
  g.constant("w", random_tensor(rng, {2, 2, 1, 1}));
  for (const char* p : {"s", "t", "m", "v"}) g.constant(p, Tensor::from<float>({2}, {1, 1}));
  g.node("Conv", {"x", "w"}, {"c"});
  g.node("BatchNormalization", {"c", "s", "t", "m", "v"}, {"n"});
  g.node("Add", {"n", "c"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fold_batch_norm(graph), 0u);
}

}  // namespace
}  // namespace strata::test
