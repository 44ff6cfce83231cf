#include "ops/infer_util.h"
#include "ops/op_cost_util.h"

namespace strata::test {
namespace {

Tensor gemm_a23() {
  return Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
}
Tensor gemm_b32() {
  return Tensor::from<float>({3, 2}, {1, 0, 0, 1, 1, 1});
}

TEST(Gemm, DefaultsWithoutBias) {
  OpCall call{.op_type = "Gemm", .opset = 13};
  call.inputs = {gemm_a23(), gemm_b32()};
  expect_near(run_op(call)[0], {4, 5, 10, 11});
}

TEST(Gemm, TransposesAlphaBetaAndBiasBroadcasts) {
  // op(A) = A^T^T = [[1,2,3],[4,5,6]] given as its transpose; op(B) likewise.
  OpCall call{.op_type = "Gemm",
              .opset = 13,
              .attributes = {{"transA", attr_int(1)},
                             {"transB", attr_int(1)},
                             {"alpha", attr_float(2)},
                             {"beta", attr_float(0.5f)}}};
  const Tensor a_t = Tensor::from<float>({3, 2}, {1, 4, 2, 5, 3, 6});
  const Tensor b_t = Tensor::from<float>({2, 3}, {1, 0, 1, 0, 1, 1});
  const std::pair<Tensor, std::vector<float>> biases[] = {
      {Tensor::from<float>({}, {2}), {9, 11, 21, 23}},
      {Tensor::from<float>({2}, {2, 4}), {9, 12, 21, 24}},
      {Tensor::from<float>({2, 1}, {2, 4}), {9, 11, 22, 24}},
      {Tensor::from<float>({2, 2}, {2, 4, 6, 8}), {9, 12, 23, 26}},
  };
  for (const auto& [bias, expected] : biases) {
    call.inputs = {a_t, b_t, bias};
    expect_near(run_op(call)[0], expected);
  }
}

TEST(Gemm, Integers) {
  OpCall call{.op_type = "Gemm", .opset = 13};
  call.inputs = {Tensor::from<int32_t>({1, 2}, {3, -4}), Tensor::from<int32_t>({2, 1}, {5, 6}),
                 Tensor::from<int32_t>({1}, {100})};
  EXPECT_EQ(values_of<int32_t>(run_op(call)[0]), (std::vector<int32_t>{91}));
}

TEST(Gemm, SymbolicM) {
  OpCall call{.op_type = "Gemm", .opset = 13};
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, Shape{Dim::symbol("N"), 3}),
                        meta(DType::kF32, Shape{3, 5}), meta(DType::kF32, Shape{5})});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("N"), 5}));
}

TEST(Gemm, Cost) {
  OpCall call{.op_type = "Gemm", .opset = 13, .attributes = {{"alpha", attr_float(2)}}};
  ops::Cost c =
      cost_of(call, {meta(DType::kF32, Shape{4, 3}), known(Tensor::zeros(DType::kF32, {3, 5})),
                     known(Tensor::zeros(DType::kF32, {5}))});
  EXPECT_EQ(c.macs, 4 * 5 * 3);
  EXPECT_EQ(c.flops, 2 * c.macs + 20 + 20);  // alpha scaling, bias add
  EXPECT_EQ(c.param_bytes, (15 + 5) * 4);
}

TEST(Gemm, Errors) {
  OpCall inner{.op_type = "Gemm", .opset = 13};
  inner.inputs = {gemm_a23(), gemm_a23()};
  EXPECT_THROW(run_op(inner), Error);
  OpCall bias{.op_type = "Gemm", .opset = 13};
  bias.inputs = {gemm_a23(), gemm_b32(), Tensor::zeros(DType::kF32, {3})};
  EXPECT_THROW(run_op(bias), Error);
  OpCall bias_rank{.op_type = "Gemm", .opset = 13};
  bias_rank.inputs = {gemm_a23(), gemm_b32(), Tensor::zeros(DType::kF32, {1, 2, 2})};
  EXPECT_THROW(run_op(bias_rank), Error);
  OpCall rank3{.op_type = "Gemm", .opset = 13};
  rank3.inputs = {Tensor::zeros(DType::kF32, {1, 2, 3}), gemm_b32()};
  EXPECT_THROW(run_op(rank3), Error);
}

}  // namespace
}  // namespace strata::test
