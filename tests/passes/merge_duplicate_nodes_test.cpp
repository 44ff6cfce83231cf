// Common subexpressions (src/passes/merge_duplicate_nodes.cpp): what is merged, chains of
// duplicates, and what is left alone (different attributes or inputs, random ops, graph outputs).
#include "passes/merge_duplicate_nodes.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"
#include "passes/remove_dead_nodes.h"

namespace strata::test {
namespace {

TEST(MergeDuplicateNodes, ReadersOfADuplicateReadTheFirstNode) {
  // x → DynamicQuantizeLinear three times (the attention's q, k, v), each read by a
  // MatMulInteger; then Relu twice on the merged products' sum (a chain of duplicates).
  GraphBuilder g;
  g.input("x", {4, 8});
  std::mt19937 rng(1);
  g.constant("w", Tensor::from<int8_t>({8, 8}, std::vector<int8_t>(64, 3)));
  for (const char* p : {"q", "k", "v"}) {
    const std::string s(p);
    g.node("DynamicQuantizeLinear", {"x"}, {s + "_x", s + "_scale", s + "_zero"});
    g.node("MatMulInteger", {s + "_x", "w", s + "_zero"}, {s + "_sum"});
  }
  g.node("Add", {"q_sum", "k_sum"}, {"qk"});
  g.node("Add", {"qk", "v_sum"}, {"qkv"});
  g.node("Cast", {"qkv"}, {"f"}).attributes["to"] = attr_int(1);
  g.node("Relu", {"f"}, {"r1"});
  g.node("Relu", {"f"}, {"r2"});
  g.node("Mul", {"r1", "r2"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph graph = before;
  // Two DynamicQuantizeLinear, then the two MatMulIntegers reading the first one, then a Relu.
  EXPECT_EQ(passes::merge_duplicate_nodes(graph), 5u);
  EXPECT_EQ(passes::remove_dead_nodes(graph), 5u);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"DynamicQuantizeLinear", "MatMulInteger",
                                                       "Add", "Add", "Cast", "Relu", "Mul"}));
  const ir::Node& add = graph.nodes[2];
  EXPECT_EQ(add.inputs[0], add.inputs[1]);  // q_sum twice
  EXPECT_EQ(graph.nodes[0].fused_from,
            (std::vector<std::string>{"q_x_node", "k_x_node", "v_x_node"}));
  expect_same_outputs(before, graph, {random_tensor(rng, {4, 8})});
}

TEST(MergeDuplicateNodes, LeavesDifferentRandomAndOutputNodes) {
  GraphBuilder g;
  g.input("x", {4, 8});
  g.node("Softmax", {"x"}, {"a"}).attributes["axis"] = attr_int(0);
  g.node("Softmax", {"x"}, {"b"}).attributes["axis"] = attr_int(1);  // another attribute
  g.node("Relu", {"a"}, {"c"});
  g.node("Relu", {"b"}, {"d"});  // another input
  g.node("RandomUniformLike", {"x"}, {"e"});
  g.node("RandomUniformLike", {"x"}, {"f"});  // random: two draws
  g.node("Abs", {"x"}, {"g"});
  g.node("Abs", {"x"}, {"h"});  // a graph output of its own
  for (const char* y : {"c", "d", "e", "f", "g", "h"}) g.output(y);
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::merge_duplicate_nodes(graph), 0u);
}

}  // namespace
}  // namespace strata::test
