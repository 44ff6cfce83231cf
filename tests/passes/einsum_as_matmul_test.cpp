#include "passes/einsum_as_matmul.h"

#include <gtest/gtest.h>

#include "passes/pass_test_util.h"

namespace strata::test {
namespace {

ir::Graph einsum_graph(const std::string& equation, const std::vector<int64_t>& a,
                       const std::vector<int64_t>& b) {
  GraphBuilder g;
  g.input("a", a);
  g.input("b", b);
  ir::Attribute eq;
  eq.kind = ir::Attribute::Kind::kString;
  eq.s = equation;
  g.node("Einsum", {"a", "b"}, {"y"}).attributes["equation"] = eq;
  g.output("y");
  return g.build();
}

// Batched products as attention writes them: the operands permuted to [batch, rows, k] and
// [batch, k, columns] only where they are not already, the product permuted back only where the
// output's order differs; every rewrite computes what the Einsum did.
TEST(EinsumAsMatMul, BatchedProductsBecomeMatMulWithTheTransposesTheyNeed) {
  struct Case {
    std::string equation;
    std::vector<int64_t> a, b;
    std::vector<std::string> ops;
  };
  const std::vector<Case> cases = {
      {"B G H I D, B G H J D -> B G H I J",
       {1, 2, 3, 7, 4},
       {1, 2, 3, 5, 4},  // MaxViT's QKᵀ
       {"Transpose", "MatMul"}},
      {"bghij,bghjd->bghid", {1, 2, 3, 7, 5}, {1, 2, 3, 5, 4}, {"MatMul"}},  // MaxViT's PV
      {"ij,jk->ik", {6, 5}, {5, 3}, {"MatMul"}},
      {"bqhd,bkhd->bhqk", {2, 6, 3, 4}, {2, 5, 3, 4}, {"Transpose", "Transpose", "MatMul"}},
      {"bhqk,bkhd->bqhd",
       {2, 3, 6, 5},
       {2, 5, 3, 4},
       {"Transpose", "MatMul", "Transpose"}},  // the product back to [b, q, h, d]
      {"ik,k j->ji", {6, 5}, {5, 3}, {"MatMul", "Transpose"}},
      {"ij,jk", {6, 5}, {5, 3}, {"MatMul"}},  // implicit output: ik
  };
  std::mt19937 rng(81);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation);
    const ir::Graph before = einsum_graph(c.equation, c.a, c.b);
    ir::Graph after = before;
    EXPECT_EQ(passes::einsum_as_matmul(after), 1u);
    EXPECT_EQ(op_types(after), c.ops);
    for (const ir::Node& n : after.nodes)
      EXPECT_EQ(n.fused_from, (std::vector<std::string>{"y_node"})) << n.name;
    expect_same_outputs(before, after, {random_tensor(rng, c.a), random_tensor(rng, c.b)});
  }
}

// What is not one batched product of one row, column and contracted label stays an Einsum: a
// label summed in one operand alone, two contracted labels, a diagonal, an ellipsis, a batch
// label that broadcasts, a missing row label.
TEST(EinsumAsMatMul, LeavesWhatIsNotOneBatchedProduct) {
  const std::vector<std::tuple<std::string, std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {"ij,jk->i", {4, 5}, {5, 3}},           {"ijk,jk->i", {4, 5, 3}, {5, 3}},
      {"ii,ij->ij", {4, 4}, {4, 3}},          {"...ij,...jk->...ik", {2, 4, 5}, {2, 5, 3}},
      {"bij,bjk->bik", {1, 4, 5}, {2, 5, 3}}, {"bj,bjk->bk", {2, 5}, {2, 5, 3}},
  };
  for (const auto& [equation, a, b] : cases) {
    SCOPED_TRACE(equation);
    ir::Graph graph = einsum_graph(equation, a, b);
    EXPECT_EQ(passes::einsum_as_matmul(graph), 0u);
    EXPECT_EQ(op_types(graph), std::vector<std::string>{"Einsum"});
  }
}

}  // namespace
}  // namespace strata::test
