#include "passes/sink_transposes.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

ir::Node& transpose(GraphBuilder& g, const std::string& in, const std::string& out,
                    std::vector<int64_t> perm) {
  ir::Node& t = g.node("Transpose", {in}, {out});
  t.attributes["perm"] = attr_ints(std::move(perm));
  return t;
}

// A Keras-style block: NHWC in, Transpose → Conv → Transpose, then a channels-last scale, shift
// and ReLU, then back to NCHW for a second convolution, and NHWC out.
TEST(SinkTransposes, ChannelsLastOpsMoveBeforeTheTransposeAndInversePairsVanish) {
  std::mt19937 rng(4);
  GraphBuilder g;
  g.input("x", {1, 5, 6, 3});
  g.constant("w1", random_tensor(rng, {4, 3, 3, 3}));
  g.constant("w2", random_tensor(rng, {4, 4, 1, 1}));
  g.constant("scale", random_tensor(rng, {4}));
  g.constant("shift", random_tensor(rng, {1, 1, 1, 4}));
  transpose(g, "x", "x_nchw", {0, 3, 1, 2});
  g.node("Conv", {"x_nchw", "w1"}, {"c1"}).attributes["pads"] = attr_ints({1, 1, 1, 1});
  transpose(g, "c1", "c1_nhwc", {0, 2, 3, 1});
  g.node("Mul", {"c1_nhwc", "scale"}, {"scaled"});
  g.node("Add", {"shift", "scaled"}, {"shifted"});  // the constant first
  g.node("Relu", {"shifted"}, {"r"});
  transpose(g, "r", "r_nchw", {0, 3, 1, 2});
  g.node("Conv", {"r_nchw", "w2"}, {"c2"});
  transpose(g, "c2", "y", {0, 2, 3, 1});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_GT(passes::sink_transposes(after), 0u);
  EXPECT_EQ(op_types(after), (std::vector<std::string>{"Transpose", "Conv", "Mul", "Add", "Relu",
                                                       "Conv", "Transpose"}));
  expect_same_outputs(before, after, {random_tensor(rng, {1, 5, 6, 3})});
}

TEST(SinkTransposes, LeavesOpsThatDoNotCommuteWithTheTranspose) {
  std::mt19937 rng(5);
  GraphBuilder g;
  g.input("x", {1, 3, 4, 5});
  g.constant("grid", random_tensor(rng, {4, 5, 3}));  // more than one dimension above 1
  g.constant("scale", random_tensor(rng, {3}));
  transpose(g, "x", "t1", {0, 2, 3, 1});
  g.node("Mul", {"t1", "grid"}, {"m"});
  transpose(g, "m", "t2", {0, 3, 1, 2});
  g.node("Softmax", {"t2"}, {"s"});  // not element-wise
  transpose(g, "s", "t3", {0, 2, 3, 1});
  g.node("Mul", {"t3", "scale"}, {"y"});
  g.node("Neg", {"t3"}, {"z"});  // a second reader of t3
  g.output("y");
  g.output("z");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::sink_transposes(graph), 0u);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"Transpose", "Mul", "Transpose", "Softmax",
                                                       "Transpose", "Mul", "Neg"}));
}

// An op whose one output is unnamed (unused, as ONNX allows) after a Transpose: nothing to move
// and no value to index with. Found by fuzz_graph (a read at index -1).
TEST(SinkTransposes, LeavesAnOpWhoseOutputIsUnnamed) {
  GraphBuilder g;
  g.input("x", {2, 3});
  transpose(g, "x", "t", {1, 0});
  g.node("Relu", {"t"}, {"unused"});
  transpose(g, "x", "y", {1, 0});
  g.output("y");
  ir::Graph graph = g.build();
  graph.nodes[1].outputs[0] = ir::kNoValue;  // as the loader leaves an output named ""
  EXPECT_EQ(passes::sink_transposes(graph), 0u);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"Transpose", "Relu", "Transpose"}));
}

// The same for the second of two Transposes that undo each other (read after fuse_qdq's find).
TEST(SinkTransposes, LeavesAnInversePairWhoseSecondOutputIsUnnamed) {
  GraphBuilder g;
  g.input("x", {2, 3});
  transpose(g, "x", "t", {1, 0});
  transpose(g, "t", "back", {1, 0});
  g.node("Relu", {"t"}, {"y"});
  g.output("y");
  ir::Graph graph = g.build();
  graph.nodes[1].outputs[0] = ir::kNoValue;
  passes::sink_transposes(graph);
  EXPECT_EQ(graph.nodes.back().op_type, "Relu");
}

TEST(SinkTransposes, KeepsATransposeWhoseOutputIsAGraphOutput) {
  GraphBuilder g;
  g.input("x", {2, 3});
  transpose(g, "x", "t", {1, 0});
  transpose(g, "t", "y", {1, 0});
  g.output("t");
  g.output("y");
  ir::Graph graph = g.build();
  EXPECT_EQ(passes::sink_transposes(graph), 0u);  // y is wanted as it is
  EXPECT_EQ(graph.nodes.size(), 2u);
}

}  // namespace
}  // namespace strata::test
