#include "passes/remove_dead_nodes.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

TEST(RemoveDeadNodes, DropsChainsNoOutputNeeds) {
  GraphBuilder g;
  g.input("x", {2});
  g.node("Neg", {"x"}, {"a"});
  g.node("Abs", {"a"}, {"unused"});  // dead, and makes Neg dead in turn...
  g.node("Relu", {"x"}, {"y"});
  g.node("Exp", {"unused"}, {"dead"});
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::remove_dead_nodes(graph), 3u);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"Relu"}));
  EXPECT_EQ(graph.values[size_t(graph.find_value("y"))].producer, 0);
}

TEST(RemoveDeadNodes, KeepsEverythingOutputsNeed) {
  GraphBuilder g;
  g.input("x", {2});
  g.node("Neg", {"x"}, {"a"});
  g.node("Abs", {"a"}, {"y"});
  g.output("a");
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::remove_dead_nodes(graph), 0u);
}

}  // namespace
}  // namespace strata::test
