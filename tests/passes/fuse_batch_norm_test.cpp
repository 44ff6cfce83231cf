#include "passes/fuse_batch_norm.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x → BatchNormalization → activation → y, DenseNet's pre-activation.
ir::Graph norm_then(std::mt19937& rng, const char* activation) {
  GraphBuilder g(15);
  g.input("x", {1, 4, 5, 5});
  Tensor var = random_tensor(rng, {4});
  for (int64_t i = 0; i < 4; ++i) var.data<float>()[i] = 0.5f + std::abs(var.data<float>()[i]);
  for (const char* p : {"scale", "shift", "mean"}) g.constant(p, random_tensor(rng, {4}));
  g.constant("var", var);
  g.node("BatchNormalization", {"x", "scale", "shift", "mean", "var"}, {"n"});
  g.node(activation, {"n"}, {"y"});
  g.output("y");
  return g.build();
}

TEST(FuseBatchNorm, TheActivationAfterANormalisationJoinsIt) {
  for (const char* activation : {"Relu", "Sigmoid"}) {
    std::mt19937 rng(12);
    const ir::Graph before = norm_then(rng, activation);
    ir::Graph after = before;
    EXPECT_EQ(passes::fuse_batch_norm(after), 1u);
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"FusedBatchNorm"}));
    EXPECT_EQ(after.nodes[0].attributes.at("activation").s, activation);
    EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"n_node", "y_node"}));
    expect_same_outputs(before, after, {random_tensor(rng, {1, 4, 5, 5})});
  }
}

TEST(FuseBatchNorm, LeavesANormalisationReadByOthers) {
  std::mt19937 rng(13);
  ir::Graph g = norm_then(rng, "Relu");
  g.values[size_t(g.find_value("n"))].is_graph_output = true;
  g.outputs.push_back(g.find_value("n"));
  EXPECT_EQ(passes::fuse_batch_norm(g), 0u);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"BatchNormalization", "Relu"}));
}

}  // namespace
}  // namespace strata::test
