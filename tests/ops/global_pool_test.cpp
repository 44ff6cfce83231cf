#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall global(const char* op_type, Tensor x) {
  OpCall call;
  call.op_type = op_type;
  call.inputs = {std::move(x)};
  return call;
}

TEST(GlobalAveragePool, MeanOfEachPlane) {
  std::vector<Tensor> out = run_op(
      global("GlobalAveragePool", Tensor::from<float>({1, 2, 2, 2}, {1, 2, 3, 4, -1, 0, 0, 5})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2, 1, 1}));
  expect_near(out[0], {2.5, 1});
}

TEST(GlobalMaxPool, MaxOfEachPlane) {
  std::vector<Tensor> out =
      run_op(global("GlobalMaxPool", Tensor::from<float>({2, 1, 3}, {1, 7, 3, -4, -2, -9})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 1, 1}));
  expect_near(out[0], {7, -2});
}

TEST(GlobalPool, DoubleHalfAndEmptyBatch) {
  std::vector<Tensor> out =
      run_op(global("GlobalAveragePool", Tensor::from<double>({1, 1, 3}, {1, 2, 6})));
  EXPECT_EQ(values_of<double>(out[0]), (std::vector<double>{3}));
  out = run_op(global("GlobalMaxPool", Tensor::from<f16>({1, 1, 3}, {1.f, 2.f, 6.f})));
  EXPECT_EQ(float(out[0].data<f16>()[0]), 6.f);
  out = run_op(global("GlobalMaxPool", Tensor::zeros(DType::kF32, {0, 3, 4, 4})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0, 3, 1, 1}));
}

TEST(GlobalPool, Errors) {
  EXPECT_THROW(run_op(global("GlobalMaxPool", Tensor::from<float>({3}, {1, 2, 3}))), Error);
  EXPECT_THROW(run_op(global("GlobalAveragePool", Tensor::zeros(DType::kI32, {1, 1, 2}))), Error);
  EXPECT_THROW(run_op(global("GlobalAveragePool", Tensor::zeros(DType::kF32, {1, 1, 0}))), Error);
}

}  // namespace
}  // namespace strata::test
