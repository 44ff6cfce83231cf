#include "passes/fuse_gelu.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// torch's GELU export of h into y: h * (1 + Erf(h / sqrt 2)) * 0.5, its Erf writing "e".
void add_exported_gelu(GraphBuilder& g) {
  g.constant("sqrt2", Tensor::from<float>({}, {1.41421354f}));
  g.constant("one", Tensor::from<float>({}, {1.0f}));
  g.constant("half", Tensor::from<float>({}, {0.5f}));
  g.node("Div", {"h", "sqrt2"}, {"d"});
  g.node("Erf", {"d"}, {"e"});
  g.node("Add", {"e", "one"}, {"a"});
  g.node("Mul", {"h", "a"}, {"m"});
  g.node("Mul", {"m", "half"}, {"y"});
  g.output("y");
}

// After an element-wise op (no MatMul to take it as a post-op).
TEST(FuseGelu, ExportedErfGeluBecomesOneNode) {
  std::mt19937 rng(5);
  GraphBuilder g(13);
  g.input("x", {2, 9});
  g.constant("two", Tensor::from<float>({}, {2.0f}));
  g.node("Mul", {"x", "two"}, {"h"});
  add_exported_gelu(g);
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fuse_gelu(after), 1u);
  EXPECT_EQ(op_types(after), (std::vector<std::string>{"Mul", "Gelu"}));
  EXPECT_EQ(after.nodes[1].fused_from.size(), 5u);
  expect_same_outputs(before, after, {random_tensor(rng, {2, 9})});
}

TEST(FuseGelu, LeavesAnErfWhoseValuesAreReadElsewhere) {
  GraphBuilder g(13);
  g.input("x", {4});
  g.node("Neg", {"x"}, {"h"});
  add_exported_gelu(g);
  g.output("e");  // the Erf's output is wanted too
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fuse_gelu(graph), 0u);
}

// Found by fuzz_graph (tests/data/fuzz-regressions/fuzz_graph/gelu-div-with-one-input.bin): the
// matcher read the Div's second input, and the nodes' first outputs, without checking they exist.
TEST(FuseGelu, LeavesNodesWithMissingInputsOrOutputs) {
  for (int broken = 0; broken < 3; ++broken) {
    GraphBuilder g(13);
    g.input("x", {4});
    g.node("Neg", {"x"}, {"h"});
    add_exported_gelu(g);
    ir::Graph graph = g.build();
    if (broken == 0) graph.nodes[1].inputs.resize(1);  // Div(h): no divisor
    if (broken == 1) graph.nodes[1].outputs.clear();   // Div with no output
    if (broken == 2) graph.nodes[5].outputs.clear();   // the final Mul with no output
    SCOPED_TRACE(broken);
    EXPECT_EQ(passes::fuse_gelu(graph), 0u);
  }
}

}  // namespace
}  // namespace strata::test
