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

// Caffe2's DenseNet: SpatialBN → Mul → Add → Relu before every convolution. The scale and shift
// fold into the normalization's scale and B; a per-width constant (a [C] vector broadcasts along
// the last axis) is left, and so is a normalization without data.
TEST(FoldConvAffine, PerChannelScaleAndShiftFoldIntoABatchNormalization) {
  std::mt19937 rng(9);
  GraphBuilder g;
  g.input("x", {2, 4, 5, 4});
  Tensor variance = random_tensor(rng, {4});
  for (int64_t i = 0; i < 4; ++i)
    variance.data<float>()[i] = 0.5f + std::abs(variance.data<float>()[i]);
  for (const char* name : {"bn_scale", "bn_b", "mean"}) g.constant(name, random_tensor(rng, {4}));
  g.constant("var", std::move(variance));
  g.constant("scale", random_tensor(rng, {4, 1, 1}));
  g.constant("shift", random_tensor(rng, {1, 4, 1, 1}));
  g.constant("width", random_tensor(rng, {4}));
  g.node("BatchNormalization", {"x", "bn_scale", "bn_b", "mean", "var"}, {"n"});
  g.node("Mul", {"n", "scale"}, {"s"});
  g.node("Add", {"shift", "s"}, {"t"});
  g.node("Mul", {"t", "width"}, {"u"});  // per width, not per channel: stays
  g.node("Relu", {"u"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fold_conv_affine(after), 2u);
  EXPECT_EQ(op_types(after), (std::vector<std::string>{"BatchNormalization", "Mul", "Relu"}));
  EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"n_node", "s_node", "t_node"}));
  expect_same_outputs(before, after, {random_tensor(rng, {2, 4, 5, 4})});
  ir::Graph no_data = before;
  no_data.nodes[0].inputs[0] = ir::kNoValue;
  EXPECT_EQ(passes::fold_conv_affine(no_data), 0u);
}

// Found by fuzz_graph (fold-conv-affine-conv-without-weights.bin): a Conv with one input made
// the pass read its weights past the node's inputs; a bias of another size than the output
// channels would have been walked past its end.
TEST(FoldConvAffine, LeavesAConvWithoutWeightsOrWithABiasOfAnotherSize) {
  std::mt19937 rng(8);
  for (int64_t bias_size : {int64_t(0), int64_t(2), int64_t(6)}) {
    GraphBuilder g;
    g.input("x", {1, 3, 5, 5});
    g.constant("w", random_tensor(rng, {4, 3, 3, 3}));
    g.constant("b", random_tensor(rng, {4}));
    g.constant("scale", random_tensor(rng, {4, 1, 1}));
    g.node("Conv", {"x", "w", "b"}, {"c"});
    g.node("Mul", {"c", "scale"}, {"y"});
    g.output("y");
    ir::Graph graph = g.build();
    // As a file could hold them (the op refuses both when it runs, naming its node).
    if (bias_size == 0)
      graph.nodes[0].inputs.resize(1);
    else
      graph.values[size_t(graph.nodes[0].inputs[2])].constant =
          std::make_shared<const Tensor>(random_tensor(rng, {bias_size}));
    EXPECT_EQ(passes::fold_conv_affine(graph), 0u) << bias_size;
    EXPECT_EQ(op_types(graph), (std::vector<std::string>{"Conv", "Mul"}));
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
