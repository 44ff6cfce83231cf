#include "passes/fuse_channel_shuffle.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x [2, 12, 5, 3] → Relu → r; then ShuffleNet's shuffle of r into "y" as exporters write it:
// Reshape to `split`, Transpose by `perm`, Reshape to `merged`.
GraphBuilder shuffle_graph(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& split,
                           const std::vector<int64_t>& perm, const std::vector<int64_t>& merged) {
  GraphBuilder g(13);
  g.input("x", x_shape);
  g.constant("split", Tensor::from<int64_t>({int64_t(split.size())}, split));
  g.constant("merged", Tensor::from<int64_t>({int64_t(merged.size())}, merged));
  g.node("Relu", {"x"}, {"r"});
  g.node("Reshape", {"r", "split"}, {"s"});
  g.node("Transpose", {"s"}, {"t"}).attributes["perm"] = attr_ints(perm);
  g.node("Reshape", {"t", "merged"}, {"y"});
  g.output("y");
  return g;
}

TEST(FuseChannelShuffle, ReshapeTransposeReshapeBecomesOneNode) {
  std::mt19937 rng(7);
  struct Case {
    std::vector<int64_t> x, split, perm;
  };
  for (const Case& c : std::vector<Case>{
           {{2, 12, 5, 3}, {2, 3, 4, 5, 3}, {0, 2, 1, 3, 4}},  // images, 3 groups
           {{1, 8, 7}, {1, 2, 4, 7}, {0, 2, 1, 3}},            // sequences, 2 groups
           {{3, 6}, {3, 6, 1}, {0, 2, 1}},                     // no spatial axes, 6 groups of 1
       }) {
    const std::vector<int64_t>&x = c.x, &split = c.split, &perm = c.perm;
    const ir::Graph before = shuffle_graph(x, split, perm, x).build();
    ir::Graph after = before;
    EXPECT_EQ(passes::fuse_channel_shuffle(after), 1u);
    ASSERT_EQ(op_types(after), (std::vector<std::string>{"Relu", "ChannelShuffle"}));
    EXPECT_EQ(after.nodes[1].domain, "strata");
    EXPECT_EQ(after.nodes[1].attributes.at("group").i, split[1]);
    EXPECT_EQ(after.nodes[1].fused_from.size(), 3u);
    expect_same_outputs(before, after, std::vector<Tensor>{random_tensor(rng, x)}, 0);
  }
}

TEST(FuseChannelShuffle, LeavesOtherReshapesAndTransposes) {
  const std::vector<int64_t> x{2, 12, 5, 3};
  struct Case {
    const char* what;
    std::vector<int64_t> split, perm, merged;
  };
  for (const Case& c : std::vector<Case>{
           {"another permutation", {2, 3, 4, 5, 3}, {0, 2, 1, 4, 3}, {2, 12, 5, 3}},
           {"merged into another shape", {2, 3, 4, 5, 3}, {0, 2, 1, 3, 4}, {2, 12, 15}},
           {"a split of the spatial axes", {2, 12, 5, 3, 1}, {0, 2, 1, 3, 4}, {2, 12, 5, 3}},
       }) {
    SCOPED_TRACE(c.what);
    ir::Graph graph = shuffle_graph(x, c.split, c.perm, c.merged).build();
    EXPECT_EQ(passes::fuse_channel_shuffle(graph), 0u);
  }
  for (const char* wanted : {"s", "t"}) {
    SCOPED_TRACE(std::string("a graph output in between: ") + wanted);
    GraphBuilder g = shuffle_graph(x, {2, 3, 4, 5, 3}, {0, 2, 1, 3, 4}, x);
    g.output(wanted);
    ir::Graph graph = g.build();
    EXPECT_EQ(passes::fuse_channel_shuffle(graph), 0u);
  }
}

// Malformed nodes reach the passes too (the op's check refuses them later, in one sentence).
TEST(FuseChannelShuffle, LeavesNodesWithMissingInputsOrOutputs) {
  const std::vector<int64_t> x{2, 12, 5, 3};
  for (int broken = 0; broken < 3; ++broken) {
    ir::Graph graph = shuffle_graph(x, {2, 3, 4, 5, 3}, {0, 2, 1, 3, 4}, x).build();
    if (broken == 0) graph.nodes[1].inputs.clear();   // Reshape with no data
    if (broken == 1) graph.nodes[2].outputs.clear();  // Transpose with no output
    if (broken == 2) graph.nodes[3].outputs.clear();  // the last Reshape with no output
    SCOPED_TRACE(broken);
    EXPECT_EQ(passes::fuse_channel_shuffle(graph), 0u);
  }
}

}  // namespace
}  // namespace strata::test
