#include "passes/specialize_inputs.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

TEST(SpecializeInputs, SymbolicDimsBecomeNumbers) {
  GraphBuilder g;
  g.input("x", {2, 3});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  graph.values[size_t(graph.find_value("x"))].shape = Shape{Dim::symbol("N"), Dim(3)};
  passes::infer_shapes(graph);
  EXPECT_EQ(graph.values[size_t(graph.find_value("y"))].shape.str(), "[N,3]");
  passes::specialize_inputs(graph, {{5, 3}});
  EXPECT_EQ(graph.values[size_t(graph.find_value("y"))].shape.str(), "[5,3]");
}

TEST(SpecializeInputs, ShapesThatDoNotFitFail) {
  GraphBuilder g;
  g.input("x", {2, 3});
  g.node("Relu", {"x"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  expect_error([&] { passes::specialize_inputs(graph, {{2, 4}}); }, {"input 'x'", "[2,4]"});
  expect_error([&] { passes::specialize_inputs(graph, {}); }, {"1 inputs but 0"});
}

}  // namespace
}  // namespace strata::test
