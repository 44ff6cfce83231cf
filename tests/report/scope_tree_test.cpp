#include "report/scope_tree.h"

#include <gtest/gtest.h>

namespace strata::report {
namespace {

// One line per row: indentation, name, figures; easy to compare as a whole.
std::string render(const std::vector<ScopeRow>& rows) {
  std::string out;
  for (const ScopeRow& r : rows) {
    out += std::string(size_t(r.depth) * 2, ' ') + r.name + " n=" + std::to_string(r.inputs);
    for (double v : r.values) out += " " + std::to_string(int(v));
    out += "\n";
  }
  return out;
}

const std::vector<ScopeInput> kResnetLike = {
    {"/conv1/Conv", {2, 5}},
    {"/layer1/layer1.0/conv1/Conv", {3, 7}},
    {"/layer1/layer1.0/relu/Relu", {1, 1}},
    {"/layer1/layer1.1/conv1/Conv", {5, 2}},
    {"/fc/Gemm", {10, 3}},
};

TEST(ScopeTree, NestsByPathInFirstAppearanceOrder) {
  EXPECT_EQ(render(build_scope_tree(kResnetLike)),
            "conv1 n=1 2 5\n"
            "  Conv n=1 2 5\n"
            "layer1 n=3 9 10\n"
            "  layer1.0 n=2 4 8\n"
            "    conv1 n=1 3 7\n"
            "      Conv n=1 3 7\n"
            "    relu n=1 1 1\n"
            "      Relu n=1 1 1\n"
            "  layer1.1 n=1 5 2\n"
            "    conv1 n=1 5 2\n"
            "      Conv n=1 5 2\n"
            "fc n=1 10 3\n"
            "  Gemm n=1 10 3\n");
}

TEST(ScopeTree, OrdersSiblingsByAColumnLargestFirst) {
  ScopeTreeOptions o;
  o.order_column = 0;
  o.max_depth = 2;
  EXPECT_EQ(render(build_scope_tree(kResnetLike, o)),
            "fc n=1 10 3\n"
            "  Gemm n=1 10 3\n"
            "layer1 n=3 9 10\n"
            "  layer1.1 n=1 5 2\n"
            "  layer1.0 n=2 4 8\n"
            "conv1 n=1 2 5\n"
            "  Conv n=1 2 5\n");
}

TEST(ScopeTree, MaxColumnsTakeTheLargestAndPathsAreRecorded) {
  ScopeTreeOptions o;
  o.combine = {Combine::kSum, Combine::kMax};
  o.max_depth = 1;
  const std::vector<ScopeRow> rows = build_scope_tree(kResnetLike, o);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].path, "/layer1");
  EXPECT_DOUBLE_EQ(rows[1].values[0], 9);
  EXPECT_DOUBLE_EQ(rows[1].values[1], 7);
  EXPECT_EQ(rows[1].own, (std::vector<size_t>{1, 2, 3}));  // folded into the depth-1 scope
  EXPECT_FALSE(rows[1].has_children);
}

TEST(ScopeTree, FlatNamesEmptyPartsAndOwnRows) {
  const std::vector<ScopeRow> rows =
      build_scope_tree({{"Conv_0", {1}}, {"", {2}}, {"a//b/", {3}}, {"/a", {4}}});
  EXPECT_EQ(render(rows),
            "Conv_0 n=1 1\n"
            "(unnamed) n=1 2\n"
            "a n=2 7\n"
            "  b n=1 3\n");
  EXPECT_EQ(rows[2].own, (std::vector<size_t>{3}));  // "/a" is a row of its own and a scope
  EXPECT_TRUE(rows[2].has_children);
  EXPECT_EQ(rows[3].path, "/a/b");
}

TEST(ScopeTree, EmptyInputAndSplitting) {
  EXPECT_TRUE(build_scope_tree({}).empty());
  EXPECT_EQ(split_scope_path("/x/y//z/"), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_TRUE(split_scope_path("///").empty());
}

}  // namespace
}  // namespace strata::report
