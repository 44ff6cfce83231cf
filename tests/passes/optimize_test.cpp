#include "passes/optimize.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

TEST(OptimizeGraph, RunsEveryPassInOrderAndKeepsTheResult) {
  std::mt19937 rng(1);
  GraphBuilder g(13);
  g.input("x", {1, 2, 4, 4});
  g.constant("w0", random_tensor(rng, {2, 2, 1, 1}));
  g.node("Identity", {"w0"}, {"w"});  // folded into a constant, so the Conv's weights are known
  g.node("Conv", {"x", "w"}, {"c"});
  g.node("Relu", {"c"}, {"y"});
  g.node("Neg", {"x"}, {"unused"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  const std::vector<passes::PassRecord> records = passes::optimize_graph(after);
  std::vector<std::string> names;
  for (const passes::PassRecord& r : records) names.push_back(r.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "fuse_qdq", "fold_constants", "einsum_as_matmul", "sink_transposes", "fold_pad",
                "fold_batch_norm", "fold_conv_affine", "fuse_batch_norm", "fuse_layer_norm",
                "fuse_conv", "fuse_matmul", "fuse_gelu", "fuse_channel_shuffle",
                "spatial_mean_as_pool", "merge_duplicate_nodes", "remove_dead_nodes"}));
  EXPECT_EQ(records[0].changes, 0u);   // no quantized convolution
  EXPECT_EQ(records[1].changes, 1u);   // the Identity folded
  EXPECT_EQ(records[9].changes, 1u);   // Conv + Relu fused
  EXPECT_EQ(records[12].changes, 0u);  // no channel shuffle
  EXPECT_EQ(records[13].changes, 0u);  // no spatial mean
  EXPECT_EQ(records[14].changes, 0u);  // no duplicates
  EXPECT_EQ(records[15].changes, 1u);  // the unused Neg removed
  EXPECT_EQ(op_types(after), (std::vector<std::string>{"FusedConv"}));
  expect_same_outputs(before, after, {random_tensor(rng, {1, 2, 4, 4})});
}

}  // namespace
}  // namespace strata::test
