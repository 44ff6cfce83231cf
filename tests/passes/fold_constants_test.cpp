#include "passes/fold_constants.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

TEST(FoldConstants, NodesOfConstantsBecomeConstants) {
  GraphBuilder g;
  g.input("x", {3});
  g.constant("a", Tensor::from<float>({3}, {1, 2, 3}));
  g.node("Identity", {"a"}, {"a2"});
  g.node("Neg", {"a2"}, {"na"});
  g.node("Add", {"x", "na"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fold_constants(after), 2u);
  EXPECT_EQ(op_types(after), (std::vector<std::string>{"Add"}));
  const ir::Value& folded = after.values[size_t(after.find_value("na"))];
  ASSERT_TRUE(folded.constant);
  EXPECT_EQ(folded.constant->to_double(), (std::vector<double>{-1, -2, -3}));
  EXPECT_EQ(folded.producer, -1);
  expect_same_outputs(before, after, {Tensor::from<float>({3}, {1, 1, 1})});
}

TEST(FoldConstants, LeavesRandomOpsAndLargeOutputs) {
  GraphBuilder g;
  g.input("x", {2});
  // Dropout in training mode draws a random mask: never folded, though its inputs are constant.
  g.constant("d", Tensor::from<float>({2}, {1, 2}));
  g.constant("ratio", Tensor::from<float>({}, {0.5f}));
  g.constant("training", Tensor::from<bool>({}, {true}));
  g.node("Dropout", {"d", "ratio", "training"}, {"r"});
  g.constant("big", Tensor::zeros(DType::kF32, {1024}));
  g.node("Neg", {"big"}, {"nb"});
  g.node("Add", {"x", "r"}, {"y"});
  g.output("y");
  g.output("nb");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fold_constants(graph, 1000), 0u);  // Neg's 4 KiB output is over the limit
  EXPECT_EQ(graph.nodes.size(), 3u);
}

}  // namespace
}  // namespace strata::test
