// TensorScatter (src/ops/tensor_scatter.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(TensorScatter, WritesEachBatchEntryAtItsIndex) {
  OpCall call = op_call("TensorScatter", 24);
  call.inputs = {Tensor::zeros(DType::kF32, {2, 3, 1}), Tensor::from<float>({2, 1, 1}, {7, 8}),
                 Tensor::from<int64_t>({2}, {2, 0})};
  expect_near(run_op(call)[0], {0, 0, 7, 8, 0, 0});
}

TEST(TensorScatter, CircularModeWraps) {
  OpCall call = op_call("TensorScatter", 24, {{"mode", attr_string("circular")}});
  call.inputs = {Tensor::zeros(DType::kF32, {2, 3, 1}),
                 Tensor::from<float>({2, 2, 1}, {1, 2, 3, 4}), Tensor::from<int64_t>({2}, {3, 5})};
  expect_near(run_op(call)[0], {1, 2, 0, 4, 0, 3});
}

TEST(TensorScatter, Errors) {
  OpCall outside = op_call("TensorScatter", 24);
  outside.inputs = {Tensor::zeros(DType::kF32, {1, 2, 1}), Tensor::from<float>({1, 2, 1}, {1, 2}),
                    Tensor::from<int64_t>({1}, {1})};
  EXPECT_THROW(run_op(outside), Error);
  OpCall shape = op_call("TensorScatter", 24);
  shape.inputs = {Tensor::zeros(DType::kF32, {1, 2, 2}), Tensor::from<float>({1, 1, 1}, {1})};
  EXPECT_THROW(run_op(shape), Error);
  OpCall mode = op_call("TensorScatter", 24, {{"mode", attr_string("ring")}});
  mode.inputs = {Tensor::zeros(DType::kF32, {1, 2, 1}), Tensor::from<float>({1, 1, 1}, {1})};
  EXPECT_THROW(run_op(mode), Error);
}

}  // namespace
}  // namespace strata::test
