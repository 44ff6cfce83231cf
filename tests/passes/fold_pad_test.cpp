#include "passes/fold_pad.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

// x → Pad(pads, value) → reader → y, Pad in its opset-11 form (pads and value as inputs).
ir::Graph padded(std::mt19937& rng, const std::vector<int64_t>& pads, float value,
                 const std::string& reader, std::vector<int64_t> own_pads = {0, 0, 0, 0},
                 int64_t count_include_pad = 0) {
  GraphBuilder g(13);
  g.input("x", {1, 3, 6, 7});
  g.constant("pads", Tensor::from<int64_t>({int64_t(pads.size())}, pads));
  g.constant("value", Tensor::from<float>({}, {value}));
  g.constant("w", random_tensor(rng, {4, 3, 3, 3}));
  g.node("Pad", {"x", "pads", "value"}, {"p"});
  ir::Node& op =
      reader == "Conv" ? g.node("Conv", {"p", "w"}, {"y"}) : g.node(reader, {"p"}, {"y"});
  if (reader != "Conv") op.attributes["kernel_shape"] = attr_ints({3, 3});
  op.attributes["pads"] = attr_ints(std::move(own_pads));
  if (reader == "AveragePool") op.attributes["count_include_pad"] = attr_int(count_include_pad);
  g.output("y");
  return g.build();
}

TEST(FoldPad, ZeroSpatialPadsBecomeTheConvOrAveragePoolsOwn) {
  std::mt19937 rng(9);
  const std::vector<int64_t> pads = {0, 0, 1, 2, 0, 0, 1, 0};
  for (const char* reader : {"Conv", "AveragePool"}) {
    for (int64_t count : {0, 1}) {
      SCOPED_TRACE(testing::Message() << reader << " count_include_pad " << count);
      const std::vector<int64_t> own =
          count ? std::vector<int64_t>{1, 0, 0, 1} : std::vector<int64_t>{0, 0, 0, 0};
      const ir::Graph before = padded(rng, pads, 0.0f, reader, own, count);
      ir::Graph after = before;
      EXPECT_EQ(passes::fold_pad(after), 1u);
      EXPECT_EQ(op_types(after), (std::vector<std::string>{reader}));
      EXPECT_EQ(after.nodes[0].fused_from, (std::vector<std::string>{"p_node", "y_node"}));
      expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 6, 7})});
    }
  }
}

TEST(FoldPad, LeavesWhatTheOpCannotPadItself) {
  std::mt19937 rng(10);
  const std::vector<int64_t> spatial = {0, 0, 1, 1, 0, 0, 1, 1};
  for (ir::Graph g : {padded(rng, spatial, 0.5f, "Conv"),                          // not zeros
                      padded(rng, {0, 1, 0, 0, 0, 0, 0, 0}, 0.0f, "AveragePool"),  // channels
                      padded(rng, {0, 0, -1, 0, 0, 0, 0, 0}, 0.0f, "Conv"),        // a crop
                      padded(rng, spatial, 0.0f, "MaxPool"),                       // -inf padding
                      padded(rng, spatial, 0.0f, "AveragePool", {1, 1, 1, 1}, 0)}) {  // uncounted
    EXPECT_EQ(passes::fold_pad(g), 0u);
    EXPECT_EQ(g.nodes.size(), 2u);
  }
}

TEST(FoldPad, OldOpsetsGivePadsAndValueAsAttributes) {
  std::mt19937 rng(11);
  GraphBuilder g(10);
  g.input("x", {1, 3, 5, 5});
  g.constant("w", random_tensor(rng, {2, 3, 3, 3}));
  ir::Node& pad = g.node("Pad", {"x"}, {"p"});
  pad.attributes["pads"] = attr_ints({0, 0, 1, 1, 0, 0, 1, 1});
  g.node("Conv", {"p", "w"}, {"y"});
  g.output("y");
  const ir::Graph before = g.build();
  ir::Graph after = before;
  EXPECT_EQ(passes::fold_pad(after), 1u);
  expect_same_outputs(before, after, {random_tensor(rng, {1, 3, 5, 5})});
}

// A Pad whose data input is named "" (omitted): no value to look at, nothing to fold. Found by
// fuzz_graph (a read at index -1).
TEST(FoldPad, LeavesAPadWithoutData) {
  std::mt19937 rng(11);
  ir::Graph g = padded(rng, {0, 0, 1, 1, 0, 0, 1, 1}, 0.0f, "Conv");
  g.nodes[0].inputs[0] = ir::kNoValue;
  EXPECT_EQ(passes::fold_pad(g), 0u);
  EXPECT_EQ(g.nodes.size(), 2u);
}

}  // namespace
}  // namespace strata::test
