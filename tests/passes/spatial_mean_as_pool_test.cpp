#include "passes/spatial_mean_as_pool.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x [2, 3, 4, 5] → Relu → r → ReduceMean(r) → y, the axes as an attribute (opset 13) or a
// constant input (opset 18).
GraphBuilder mean_graph(int64_t opset, const std::vector<int64_t>& axes, int64_t keepdims) {
  GraphBuilder g(opset);
  g.input("x", {2, 3, 4, 5});
  g.node("Relu", {"x"}, {"r"});
  if (opset >= 18) {
    g.constant("axes", Tensor::from<int64_t>({int64_t(axes.size())}, axes));
    g.node("ReduceMean", {"r", "axes"}, {"y"}).attributes["keepdims"] = attr_int(keepdims);
  } else {
    ir::Node& mean = g.node("ReduceMean", {"r"}, {"y"});
    mean.attributes["axes"] = attr_ints(axes);
    mean.attributes["keepdims"] = attr_int(keepdims);
  }
  g.output("y");
  return g;
}

TEST(SpatialMeanAsPool, MeanOverTheSpatialAxesBecomesAGlobalPool) {
  std::mt19937 rng(21);
  for (int64_t opset : {13, 18})
    for (int64_t keepdims : {1, 0})
      for (const std::vector<int64_t>& axes :
           std::vector<std::vector<int64_t>>{{2, 3}, {-1, -2}, {3, 2}}) {
        SCOPED_TRACE(testing::Message() << "opset " << opset << " keepdims " << keepdims << " axes "
                                        << axes[0] << "," << axes[1]);
        const ir::Graph before = mean_graph(opset, axes, keepdims).build();
        ir::Graph after = before;
        EXPECT_EQ(passes::spatial_mean_as_pool(after), 1u);
        const std::vector<std::string> expected =
            keepdims ? std::vector<std::string>{"Relu", "GlobalAveragePool"}
                     : std::vector<std::string>{"Relu", "GlobalAveragePool", "Flatten"};
        EXPECT_EQ(op_types(after), expected);
        EXPECT_EQ(after.nodes[1].fused_from, (std::vector<std::string>{"y_node"}));
        expect_same_outputs(before, after, {random_tensor(rng, {2, 3, 4, 5})});
      }
}

TEST(SpatialMeanAsPool, LeavesOtherMeans) {
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{1, 2}, {3}, {1, 2, 3}, {}}) {
    SCOPED_TRACE(axes.size());
    ir::Graph graph = mean_graph(13, axes, 1).build();
    EXPECT_EQ(passes::spatial_mean_as_pool(graph), 0u);
  }
  // Axes computed while running (opset 18: an input that is no constant).
  GraphBuilder g(18);
  g.input("x", {2, 3, 4, 5});
  g.input("axes", {2}, DType::kI64);
  g.node("ReduceMean", {"x", "axes"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::spatial_mean_as_pool(graph), 0u);
}

}  // namespace
}  // namespace strata::test
