#include "passes/fuse_layer_norm.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// The opset-13 export of nn.LayerNorm over the last axis.
ir::Graph exported_layer_norm(std::mt19937& rng, int64_t last_axis) {
  GraphBuilder g(13);
  g.input("x", {2, 3, 8});
  g.constant("two", Tensor::from<float>({}, {2.0f}));
  g.constant("eps", Tensor::from<float>({}, {1e-5f}));
  g.constant("gamma", random_tensor(rng, {8}));
  g.constant("beta", random_tensor(rng, {8}));
  g.node("ReduceMean", {"x"}, {"mean"}).attributes["axes"] = attr_ints({last_axis});
  g.node("Sub", {"x", "mean"}, {"d"});
  g.node("Pow", {"d", "two"}, {"sq"});
  g.node("ReduceMean", {"sq"}, {"var"}).attributes["axes"] = attr_ints({last_axis});
  g.node("Add", {"var", "eps"}, {"ve"});
  g.node("Sqrt", {"ve"}, {"std"});
  g.node("Div", {"d", "std"}, {"n"});
  g.node("Mul", {"n", "gamma"}, {"scaled"});
  g.node("Add", {"scaled", "beta"}, {"y"});
  g.output("y");
  return g.build();
}

TEST(FuseLayerNorm, ExportedPatternBecomesLayerNormalization) {
  for (int64_t axis : {-1, 2}) {
    std::mt19937 rng(1);
    const ir::Graph before = exported_layer_norm(rng, axis);
    ir::Graph after = before;
    EXPECT_EQ(passes::fuse_layer_norm(after), 1u);
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"LayerNormalization"}));
    EXPECT_EQ(after.nodes[0].fused_from.size(), 9u);
    EXPECT_FLOAT_EQ(after.nodes[0].attributes.at("epsilon").f, 1e-5f);
    expect_same_outputs(before, after, {random_tensor(rng, {2, 3, 8})});
  }
}

TEST(FuseLayerNorm, OtherAxesStay) {
  std::mt19937 rng(2);
  ir::Graph g = exported_layer_norm(rng, 1);
  EXPECT_EQ(passes::fuse_layer_norm(g), 0u);
  EXPECT_EQ(g.nodes.size(), 9u);
}

// The pattern with its first ReduceMean's input named "" (omitted) is left alone, not read at -1.
TEST(FuseLayerNorm, LeavesAReduceMeanWithoutInput) {
  std::mt19937 rng(3);
  ir::Graph g = exported_layer_norm(rng, -1);
  g.nodes[0].inputs[0] = ir::kNoValue;
  EXPECT_EQ(passes::fuse_layer_norm(g), 0u);
  EXPECT_EQ(g.nodes.size(), 9u);
}

}  // namespace
}  // namespace strata::test
