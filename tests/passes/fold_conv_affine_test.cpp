#include "passes/fold_conv_affine.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

TEST(FoldConvAffine, PerChannelScaleAndShiftFoldIntoTheConv) {
  for (bool bias : {false, true}) {
    std::mt19937 rng(6);
    GraphBuilder g;
    g.input("x", {1, 3, 7, 7});
    g.constant("w", random_tensor(rng, {4, 3, 3, 3}));
    if (bias) g.constant("b", random_tensor(rng, {4}));
    g.constant("scale", random_tensor(rng, {1, 4, 1, 1}));
    g.constant("shift", random_tensor(rng, {4, 1, 1}));
    g.constant("half", Tensor::from<float>({}, {0.5f}));
    g.node("Conv", {"x", "w", bias ? "b" : ""}, {"c"});
    g.node("Mul", {"scale", "c"}, {"s"});
    g.node("Add", {"s", "shift"}, {"t"});
    g.node("Mul", {"t", "half"}, {"h"});
    g.node("Relu", {"h"}, {"y"});
    g.output("y");
    const ir::Graph before = g.build();
    ir::Graph after = before;
    EXPECT_EQ(passes::fold_conv_affine(after), 3u);
    EXPECT_EQ(op_types(after), (std::vector<std::string>{"Conv", "Relu"}));
    EXPECT_EQ(after.nodes[0].fused_from,
              (std::vector<std::string>{"c_node", "s_node", "t_node", "h_node"}));
    expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 7, 7})});
  }
}

TEST(FoldConvAffine, LeavesWhatIsNotOneValuePerChannel) {
  std::mt19937 rng(7);
  GraphBuilder g;
  g.input("x", {1, 3, 5, 5});
  g.input("s", {4, 1, 1});
  g.constant("w", random_tensor(rng, {4, 3, 1, 1}));
  g.constant("spatial", random_tensor(rng, {1, 1, 5, 5}));
  g.node("Conv", {"x", "w"}, {"c"});
  g.node("Mul", {"c", "spatial"}, {"m"});  // per position, not per channel
  g.node("Conv", {"x", "w"}, {"c2"});
  g.node("Mul", {"c2", "s"}, {"m2"});  // known only while running
  g.output("m");
  g.output("m2");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::fold_conv_affine(graph), 0u);
  EXPECT_EQ(graph.nodes.size(), 4u);
}

}  // namespace
}  // namespace strata::test
