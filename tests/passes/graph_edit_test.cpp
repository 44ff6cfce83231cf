// The graph-editing helpers the passes share (src/passes/graph_edit.h) on malformed nodes, which
// reach the passes before the ops refuse them: the fuzzer's graphs omit inputs and outputs.
#include "passes/graph_edit.h"

#include <gtest/gtest.h>

#include "passes/match_activation.h"
#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

TEST(GraphEdit, MissingInputsAndOutputsReadAsNoValue) {
  ir::Node node;
  node.inputs = {3};
  node.outputs = {};
  EXPECT_EQ(passes::input_at(node, 0), 3);
  EXPECT_EQ(passes::input_at(node, 1), ir::kNoValue);
  EXPECT_EQ(passes::output_at(node, 0), ir::kNoValue);
}

TEST(GraphEdit, AnUnnamedOtherInputIsNoOperand) {
  ir::Node add;
  add.inputs = {4, ir::kNoValue};
  EXPECT_FALSE(passes::other_input(add, 4).has_value());
  add.inputs = {4, 5};
  EXPECT_EQ(passes::other_input(add, 4), std::optional<ir::ValueId>(5));
  EXPECT_EQ(passes::other_input(add, 5), std::optional<ir::ValueId>(4));
}

TEST(GraphEdit, NoActivationFollowsAnUnnamedValue) {
  GraphBuilder g(13);
  g.input("x", {4});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  const ir::Graph graph = g.build();
  const std::vector<bool> dead(graph.nodes.size(), false);
  EXPECT_FALSE(passes::match_activation(graph, passes::value_readers(graph), dead, ir::kNoValue));
}

}  // namespace
}  // namespace strata::test
