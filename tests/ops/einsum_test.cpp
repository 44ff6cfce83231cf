#include "ops/infer_util.h"
#include "ops/op_cost_util.h"

namespace strata::test {
namespace {

OpCall einsum(const std::string& equation, std::vector<Tensor> inputs) {
  OpCall call{
      .op_type = "Einsum", .opset = 12, .attributes = {{"equation", attr_string(equation)}}};
  call.inputs = std::move(inputs);
  return call;
}

Tensor einsum_a23() {
  return Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
}
Tensor sq() {
  return Tensor::from<float>({2, 2}, {1, 2, 3, 4});
}
Tensor v3() {
  return Tensor::from<float>({3}, {1, 0, -1});
}

struct EinsumCase {
  const char* equation;
  std::vector<Tensor> inputs;
  std::vector<int64_t> shape;
  std::vector<float> expected;
};

TEST(Einsum, Equations) {
  const EinsumCase cases[] = {
      {"ij,j->i", {einsum_a23(), v3()}, {2}, {-2, -2}},        // matrix-vector
      {"ij->ji", {einsum_a23()}, {3, 2}, {1, 4, 2, 5, 3, 6}},  // explicit transpose
      {"ji", {einsum_a23()}, {3, 2}, {1, 4, 2, 5, 3, 6}},      // implicit: sorted labels
      {"ij->", {einsum_a23()}, {}, {21}},                      // sum of everything
      {"ii->i", {sq()}, {2}, {1, 4}},                          // diagonal
      {"ii", {sq()}, {}, {5}},                                 // implicit trace
      {"i,j", {v3(), Tensor::from<float>({2}, {1, 2})}, {3, 2}, {1, 2, 0, 0, -1, -2}},
      {"...j,j->...", {einsum_a23(), v3()}, {2}, {-2, -2}},  // ellipsis
      {"i...->...", {einsum_a23()}, {3}, {5, 7, 9}},
      {" i j , j k ", {einsum_a23(), Tensor::from<float>({3, 1}, {1, 1, 1})}, {2, 1}, {6, 15}},
      {"ij,ij->ij",
       {Tensor::from<float>({1, 3}, {1, 2, 3}), einsum_a23()},
       {2, 3},
       {1, 4, 9, 4, 10, 18}},
      {"bij,bjk->bik",
       {Tensor::from<float>({2, 1, 2}, {1, 2, 3, 4}), Tensor::from<float>({2, 2, 1}, {1, 1, 2, 0})},
       {2, 1, 1},
       {3, 6}},
  };
  for (const EinsumCase& c : cases) {
    std::vector<Tensor> out = run_op(einsum(c.equation, c.inputs));
    EXPECT_EQ(out[0].shape(), c.shape) << c.equation;
    expect_near(out[0], c.expected);
  }
}

TEST(Einsum, IntegersAndEmptyContraction) {
  std::vector<Tensor> out = run_op(einsum(
      "i,i->", {Tensor::from<int64_t>({3}, {1, 2, 3}), Tensor::from<int64_t>({3}, {4, 5, 6})}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{32}));
  out = run_op(einsum("ij,jk->ik",
                      {Tensor::zeros(DType::kF32, {2, 0}), Tensor::zeros(DType::kF32, {0, 2})}));
  expect_near(out[0], {0, 0, 0, 0});
}

TEST(Einsum, SymbolicShapes) {
  std::vector<ops::Meta> out = infer_only(
      einsum("b...ij,jk->b...ik", {}),
      {meta(DType::kF32, Shape{Dim::symbol("B"), 5, 2, 3}), meta(DType::kF32, Shape{3, 4})});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("B"), 5, 2, 4}));
}

TEST(Einsum, Cost) {
  ops::Cost c = cost_of(einsum("bij,bjk->bik", {}),
                        {meta(DType::kF32, Shape{2, 3, 4}), meta(DType::kF32, Shape{2, 4, 5})});
  EXPECT_EQ(c.macs, 2 * 3 * 4 * 5);
  EXPECT_EQ(c.flops, 2 * c.macs);
}

TEST(Einsum, Errors) {
  const std::pair<const char*, std::vector<Tensor>> bad[] = {
      {"ij,jk->ik", {einsum_a23(), einsum_a23()}},  // j sizes 3 vs 2
      {"ij->ik", {einsum_a23()}},                   // k not in any input
      {"ij->ii", {einsum_a23()}},                   // repeated output label
      {"ijk->i", {einsum_a23()}},                   // rank mismatch
      {"ii->i", {einsum_a23()}},                    // diagonal of a non-square matrix
      {"ij,j->i", {einsum_a23()}},                  // two operands, one input
      {"...j->j", {einsum_a23()}},                  // broadcast dims missing from the output
      {"i.j->i", {einsum_a23()}},                   // stray dot
      {"i1->i", {einsum_a23()}},                    // invalid character
  };
  for (const auto& [equation, inputs] : bad)
    EXPECT_THROW(run_op(einsum(equation, inputs)), Error) << equation;
  OpCall missing{.op_type = "Einsum", .opset = 12};
  missing.inputs = {einsum_a23()};
  EXPECT_THROW(run_op(missing), Error);
}

}  // namespace
}  // namespace strata::test
