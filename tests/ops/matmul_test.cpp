#include "ops/infer_util.h"
#include "ops/op_cost_util.h"

namespace strata::test {
namespace {

Tensor a23() {
  return Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
}
Tensor b32() {
  return Tensor::from<float>({3, 2}, {1, 0, 0, 1, 1, 1});
}

TEST(MatMul, TwoByThreeTimesThreeByTwo) {
  OpCall call{.op_type = "MatMul", .opset = 13};
  call.inputs = {a23(), b32()};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {4, 5, 10, 11});
}

struct ShapeCase {
  std::vector<int64_t> a, b, out;
};

TEST(MatMul, VectorPromotionAndBatchBroadcast) {
  const ShapeCase cases[] = {
      {{3}, {3}, {}},           {{3}, {3, 2}, {2}},
      {{2, 3}, {3}, {2}},       {{4, 1, 2, 3}, {5, 3, 2}, {4, 5, 2, 2}},
      {{3}, {4, 3, 2}, {4, 2}}, {{0, 3}, {3, 2}, {0, 2}},
  };
  for (const ShapeCase& c : cases) {
    OpCall call{.op_type = "MatMul", .opset = 13};
    call.inputs = {Tensor::zeros(DType::kF32, c.a), Tensor::zeros(DType::kF32, c.b)};
    EXPECT_EQ(run_op(call)[0].shape(), c.out);
  }
}

TEST(MatMul, BatchedValuesBroadcastB) {
  OpCall call{.op_type = "MatMul", .opset = 13};
  call.inputs = {Tensor::from<float>({2, 1, 2}, {1, 2, 3, 4}),
                 Tensor::from<float>({2, 1}, {10, 100})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 1, 1}));
  expect_near(out[0], {210, 430});
}

TEST(MatMul, IntegersAndEmptyK) {
  OpCall ints{.op_type = "MatMul", .opset = 13};
  ints.inputs = {Tensor::from<int64_t>({1, 2}, {3, -4}), Tensor::from<int64_t>({2, 1}, {5, 6})};
  EXPECT_EQ(values_of<int64_t>(run_op(ints)[0]), (std::vector<int64_t>{-9}));
  OpCall empty_k{.op_type = "MatMul", .opset = 13};
  empty_k.inputs = {Tensor::zeros(DType::kF32, {2, 0}), Tensor::zeros(DType::kF32, {0, 2})};
  expect_near(run_op(empty_k)[0], {0, 0, 0, 0});
}

TEST(MatMul, SymbolicBatch) {
  OpCall call{.op_type = "MatMul", .opset = 13};
  std::vector<ops::Meta> out = infer_only(
      call, {meta(DType::kF32, Shape{Dim::symbol("N"), 7, 3}), meta(DType::kF32, Shape{3, 5})});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("N"), 7, 5}));
  EXPECT_THROW(infer_only(call, {meta(DType::kF32, Shape{7, Dim::symbol("K")}),
                                 meta(DType::kF32, Shape{3, 5})}),
               NotStatic);
}

TEST(MatMul, Cost) {
  ops::Meta weights = known(Tensor::zeros(DType::kF32, {3, 5}));
  ops::Cost c = cost_of({.op_type = "MatMul"}, {meta(DType::kF32, Shape{2, 7, 3}), weights});
  EXPECT_EQ(c.macs, 2 * 7 * 5 * 3);
  EXPECT_EQ(c.flops, 2 * c.macs);
  EXPECT_EQ(c.param_bytes, 15 * 4);
}

TEST(MatMul, Errors) {
  OpCall inner{.op_type = "MatMul", .opset = 13};
  inner.inputs = {a23(), a23()};
  EXPECT_THROW(run_op(inner), Error);
  OpCall batch{.op_type = "MatMul", .opset = 13};
  batch.inputs = {Tensor::zeros(DType::kF32, {2, 1, 3}), Tensor::zeros(DType::kF32, {3, 3, 1})};
  EXPECT_THROW(run_op(batch), Error);
  OpCall scalar{.op_type = "MatMul", .opset = 13};
  scalar.inputs = {Tensor::from<float>({}, {1}), b32()};
  EXPECT_THROW(run_op(scalar), Error);
  OpCall mixed{.op_type = "MatMul", .opset = 13};
  mixed.inputs = {a23(), Tensor::zeros(DType::kF64, {3, 2})};
  EXPECT_THROW(run_op(mixed), Error);
}

}  // namespace
}  // namespace strata::test
