// compare_dumps: value by value in execution order, the first divergent node, and bad input.
#include "debug/compare.h"

#include <gtest/gtest.h>

#include "testutil/expect_error.h"

namespace strata::test {
namespace {

Tensor floats(std::vector<float> v) {
  return Tensor::from<float>({int64_t(v.size())}, std::span<const float>(v));
}

// x → a (Relu) → b (Neg) → c (Add b, w): three nodes in a chain.
debug::Dump chain(float a_bump = 0, float c_bump = 0) {
  debug::Dump d;
  d.source = "dump";
  d.ordered = true;
  d.graph_inputs = {"x"};
  d.nodes = {{"relu", "Relu", {}, {"x"}, {"a"}, false},
             {"neg", "Neg", {}, {"a"}, {"b"}, false},
             {"add", "Add", {}, {"b", "w"}, {"c"}, false}};
  d.values["x"] = floats({1, -2, 3});
  d.values["a"] = floats({1 + a_bump, 0, 3});
  d.values["b"] = floats({-1 - a_bump, 0, -3});
  d.values["c"] = floats({-1 - a_bump + c_bump, 1, -2});
  return d;
}

TEST(CompareDumps, IdenticalDumpsAgree) {
  const debug::DumpComparison c = debug::compare_dumps(chain(), chain(), {});
  EXPECT_TRUE(c.agree());
  EXPECT_EQ(c.values.size(), 4u);
  EXPECT_FALSE(c.first_divergent);
  EXPECT_NE(debug::render_comparison(c, "A", "B", {}).find("all values agree"), std::string::npos);
}

TEST(CompareDumps, NamesTheFirstNodeWhoseInputsAgree) {
  // relu's output is off; neg and add follow from it.
  const debug::DumpComparison c = debug::compare_dumps(chain(0.5f), chain(), {});
  EXPECT_EQ(c.out_of_tolerance, 3u);
  ASSERT_TRUE(c.first_divergent);
  EXPECT_EQ(c.nodes[*c.first_divergent].name, "relu");
  const std::string text = debug::render_comparison(c, "A", "B", {});
  EXPECT_NE(text.find("first divergent node: relu (Relu)"), std::string::npos) << text;
  // Only the last node wrong.
  const debug::DumpComparison last = debug::compare_dumps(chain(0, 1e-2f), chain(), {});
  ASSERT_TRUE(last.first_divergent);
  EXPECT_EQ(last.nodes[*last.first_divergent].name, "add");
  EXPECT_EQ(last.out_of_tolerance, 1u);
}

TEST(CompareDumps, ErrorFiguresAndTolerance) {
  const debug::DumpComparison c = debug::compare_dumps(chain(0, 1e-4f), chain(), {});
  // c[0] = -1 + 1e-4 vs -1: relative 1e-4, within the default rtol 1e-3.
  EXPECT_TRUE(c.agree());
  const runtime::Comparison& last = c.values.back().comparison;
  EXPECT_NEAR(last.max_abs_error, 1e-4, 1e-7);
  EXPECT_GT(last.max_ulp, 800);  // 1e-4 near 1 is about 839 float32 units
  EXPECT_LT(last.cosine, 1);
  const debug::DumpComparison strict = debug::compare_dumps(chain(0, 1e-4f), chain(), {1e-5, 0});
  EXPECT_FALSE(strict.agree());
}

TEST(CompareDumps, DifferingInputsAreNamed) {
  debug::Dump a = chain();
  a.values["x"] = floats({1, -2, 4});
  a.values["c"] = floats({-1, 1, -3});
  const debug::DumpComparison c = debug::compare_dumps(a, chain(), {});
  EXPECT_EQ(c.divergent_inputs, std::vector<std::string>{"x"});
  // relu and neg still agree; add's output differs while b agrees (w is in neither dump): add.
  ASSERT_TRUE(c.first_divergent);
  EXPECT_EQ(c.nodes[*c.first_divergent].name, "add");
}

TEST(CompareDumps, AFusedChainLinesUpWithItsParts) {
  // A fused relu and neg into one node writing "b"; B has both, and "a" only B holds.
  debug::Dump a = chain();
  a.nodes = {{"relu", "FusedReluNeg", {"relu", "neg"}, {"x"}, {"b"}, false},
             {"add", "Add", {}, {"b", "w"}, {"c"}, false}};
  a.values.erase("a");
  a.values["b"] = floats({-1.5f, 0, -3});
  a.values["c"] = floats({-1.5f, 1, -2});
  const debug::DumpComparison c = debug::compare_dumps(a, chain(), {});
  EXPECT_EQ(c.only_b, 1u);
  ASSERT_TRUE(c.first_divergent);
  EXPECT_EQ(c.nodes[*c.first_divergent].op_type, "FusedReluNeg");
  // The fused order is used either way round: all its values are in both dumps.
  const debug::DumpComparison swapped = debug::compare_dumps(chain(), a, {});
  EXPECT_EQ(swapped.nodes[*swapped.first_divergent].op_type, "FusedReluNeg");
  // With only the unfused order known (B a folder of .npy), the first divergent node is neg, but
  // its input "a" is compared with nothing: relu, which wrote it, is named beside neg.
  a.ordered = false;
  a.nodes.clear();
  const debug::DumpComparison reverse = debug::compare_dumps(chain(), a, {});
  EXPECT_EQ(reverse.nodes[*reverse.first_divergent].name, "neg");
  ASSERT_EQ(reverse.unchecked_producers.size(), 1u);
  EXPECT_EQ(reverse.nodes[reverse.unchecked_producers[0]].name, "relu");
  EXPECT_NE(debug::render_comparison(reverse, "A", "B", {})
                .find("or before it: relu (Relu), whose output only one dump holds"),
            std::string::npos);
}

TEST(CompareDumps, AnUnorderedDumpTakesTheOrderOfTheOther) {
  debug::Dump b = chain(0.5f);
  b.ordered = false;
  b.nodes.clear();
  b.graph_inputs.clear();
  const debug::DumpComparison c = debug::compare_dumps(chain(), b, {});
  ASSERT_TRUE(c.first_divergent);
  EXPECT_EQ(c.nodes[*c.first_divergent].name, "relu");
}

TEST(CompareDumps, BadInputFailsWithOneSentence) {
  debug::Dump a = chain(), b = chain();
  a.model_signature = "1111111111111111";
  b.model_signature = "2222222222222222";
  expect_error([&] { debug::compare_dumps(a, b, {}); }, {"different models"});
  b = chain();
  b.values["b"] = floats({1, 2});
  expect_error([&] { debug::compare_dumps(chain(), b, {}); },
               {"value 'b'", "float32[3]", "float32[2]"});
  a = chain();
  a.ordered = false;
  b = chain();
  b.ordered = false;
  expect_error([&] { debug::compare_dumps(a, b, {}); }, {"index.json"});
  b = chain();
  b.values.clear();
  b.values["other"] = floats({1});
  expect_error([&] { debug::compare_dumps(chain(), b, {}); }, {"share no value"});
}

}  // namespace
}  // namespace strata::test
