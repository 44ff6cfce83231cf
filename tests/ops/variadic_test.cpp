#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall variadic(const char* op_type, std::vector<Tensor> inputs) {
  OpCall call = op_call(op_type);
  call.inputs = std::move(inputs);
  return call;
}

TEST(Variadic, ThreeInputsBroadcast) {
  const std::vector<Tensor> in = {Tensor::from<float>({2, 2}, {1, 5, 3, 8}),
                                  Tensor::from<float>({2}, {4, 2}),
                                  Tensor::from<float>({2, 1}, {0, 6})};
  std::vector<Tensor> sum = run_op(variadic("Sum", in));
  EXPECT_EQ(sum[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(sum[0], {5, 7, 13, 16});
  expect_near(run_op(variadic("Mean", in))[0], {5 / 3.0f, 7 / 3.0f, 13 / 3.0f, 16 / 3.0f});
  expect_near(run_op(variadic("Max", in))[0], {4, 5, 6, 8});
  expect_near(run_op(variadic("Min", in))[0], {0, 0, 3, 2});
}

TEST(Variadic, OneInputIsCopied) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    SCOPED_TRACE(op);
    expect_near(run_op(variadic(op, {Tensor::from<float>({3}, {1, -2, 3})}))[0], {1, -2, 3});
  }
}

TEST(Variadic, OutputGrowsToTheBroadcastShape) {
  std::vector<Tensor> out =
      run_op(variadic("Max", {Tensor::from<float>({1}, {2}), Tensor::from<float>({3, 1}, {1, 2, 3}),
                              Tensor::from<float>({2}, {0, 5})}));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{3, 2}));
  expect_near(out[0], {2, 5, 2, 5, 3, 5});
}

TEST(Variadic, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Tensor> in = {Tensor::from<float>({2}, {nan, 1}),
                                  Tensor::from<float>({2}, {1, nan})};
  for (const char* op : {"Max", "Min"}) {
    std::vector<Tensor> out = run_op(variadic(op, in));
    EXPECT_TRUE(std::isnan(out[0].data<float>()[0])) << op;
    EXPECT_TRUE(std::isnan(out[0].data<float>()[1])) << op;
  }
}

TEST(Variadic, IntegerTypes) {
  const std::vector<Tensor> in = {Tensor::from<uint8_t>({3}, {200, 1, 7}),
                                  Tensor::from<uint8_t>({3}, {100, 2, 3})};
  EXPECT_EQ(values_of<uint8_t>(run_op(variadic("Sum", in))[0]), (std::vector<uint8_t>{44, 3, 10}));
  EXPECT_EQ(values_of<uint8_t>(run_op(variadic("Max", in))[0]), (std::vector<uint8_t>{200, 2, 7}));
  const int64_t big = (int64_t(1) << 62) + 1;  // exact only if not accumulated in double
  EXPECT_EQ(values_of<int64_t>(run_op(variadic("Min", {Tensor::from<int64_t>({1}, {big}),
                                                       Tensor::from<int64_t>({1}, {big + 1})}))[0]),
            (std::vector<int64_t>{big}));
}

TEST(Variadic, Float16SumsInWiderPrecision) {
  std::vector<Tensor> out = run_op(
      variadic("Sum", {Tensor::from<f16>({1}, {f16(2048.0f)}), Tensor::from<f16>({1}, {f16(1.0f)}),
                       Tensor::from<f16>({1}, {f16(1.0f)})}));
  ASSERT_EQ(out[0].dtype(), DType::kF16);
  EXPECT_EQ(float(out[0].data<f16>()[0]), 2050.0f);  // 2048 + 1 alone would round back to 2048
}

TEST(Variadic, Errors) {
  EXPECT_THROW(run_op(variadic("Sum", {})), Error);
  EXPECT_THROW(
      run_op(variadic("Sum", {Tensor::zeros(DType::kF32, {2}), Tensor::zeros(DType::kF64, {2})})),
      Error);
  EXPECT_THROW(
      run_op(variadic("Max", {Tensor::zeros(DType::kF32, {2}), Tensor::zeros(DType::kF32, {3})})),
      Error);
  EXPECT_THROW(run_op(variadic("Mean", {Tensor::zeros(DType::kI32, {2})})), Error);
  EXPECT_THROW(run_op(variadic("Min", {Tensor::zeros(DType::kBool, {2})})), Error);
}

}  // namespace
}  // namespace strata::test
