#include <cstdint>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall where(Tensor condition, Tensor x, Tensor y) {
  OpCall call = op_call("Where", 16);
  call.inputs = {std::move(condition), std::move(x), std::move(y)};
  return call;
}

TEST(Where, SelectsElementwise) {
  std::vector<Tensor> out = run_op(where(Tensor::from<bool>({2, 2}, {true, false, true, true}),
                                         Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                         Tensor::from<float>({2, 2}, {9, 8, 7, 6})));
  expect_near(out[0], {1, 8, 3, 4});
}

TEST(Where, BroadcastsAllThreeInputs) {
  std::vector<Tensor> out =
      run_op(where(Tensor::from<bool>({2, 1}, {true, false}), Tensor::from<int64_t>({3}, {1, 2, 3}),
                   Tensor::from<int64_t>({}, {-1})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(Where, BoolAndHalfValues) {
  std::vector<Tensor> b =
      run_op(where(Tensor::from<bool>({2}, {true, false}), Tensor::from<bool>({2}, {true, true}),
                   Tensor::from<bool>({2}, {false, false})));
  EXPECT_EQ(values_of<bool>(b[0]), (std::vector<bool>{true, false}));
  std::vector<Tensor> h =
      run_op(where(Tensor::from<bool>({1}, {false}), Tensor::from<f16>({1}, {f16(1.0f)}),
                   Tensor::from<f16>({1}, {f16(0.333f)})));
  EXPECT_EQ(h[0].data<f16>()[0].bits, f16(0.333f).bits);
}

TEST(Where, EmptyOutput) {
  std::vector<Tensor> out =
      run_op(where(Tensor::zeros(DType::kBool, {0}), Tensor::from<float>({1}, {1}),
                   Tensor::from<float>({1}, {2})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0}));
}

TEST(Where, Errors) {
  EXPECT_THROW(run_op(where(Tensor::zeros(DType::kI32, {1}), Tensor::zeros(DType::kF32, {1}),
                            Tensor::zeros(DType::kF32, {1}))),
               Error);
  EXPECT_THROW(run_op(where(Tensor::zeros(DType::kBool, {1}), Tensor::zeros(DType::kF32, {1}),
                            Tensor::zeros(DType::kF64, {1}))),
               Error);
  EXPECT_THROW(run_op(where(Tensor::zeros(DType::kBool, {2}), Tensor::zeros(DType::kF32, {3}),
                            Tensor::zeros(DType::kF32, {1}))),
               Error);
}

}  // namespace
}  // namespace strata::test
