#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// X [1, 2, 3] with per-channel scale, B, mean and var.
OpCall batch_norm() {
  OpCall call;
  call.op_type = "BatchNormalization";
  call.inputs = {Tensor::from<float>({1, 2, 3}, {-1, 0, 1, 2, 3, 4}),
                 Tensor::from<float>({2}, {1, 1.5}), Tensor::from<float>({2}, {0, 1}),
                 Tensor::from<float>({2}, {0, 3}), Tensor::from<float>({2}, {1, 1.5})};
  return call;
}

TEST(BatchNormalization, UsesRunningStatistics) {
  expect_near(run_op(batch_norm())[0], {-0.999995f, 0, 0.999995f, -0.2247408f, 1, 2.2247408f});
}

TEST(BatchNormalization, EpsilonAndMixedParamTypes) {
  OpCall call = batch_norm();
  call.attributes["epsilon"] = attr_float(0.5f);
  call.inputs[4] = Tensor::from<double>({2}, {0.5, 1.5});  // opset 15 allows another float type
  expect_near(run_op(call)[0], {-1, 0, 1, -0.0606602f, 1, 2.0606602f});
}

TEST(BatchNormalization, OldOpsetExtraOutputsGetRunningStats) {
  OpCall call = batch_norm();
  call.opset = 7;
  call.num_outputs = 5;
  std::vector<Tensor> out = run_op(call);
  expect_near(out[1], {0, 3});
  expect_near(out[2], {1, 1.5});
  expect_near(out[3], {0, 3});
  expect_near(out[4], {1, 1.5});
}

TEST(BatchNormalization, SpatialZeroHasPerElementParams) {
  OpCall call = batch_norm();
  call.opset = 7;
  call.attributes["spatial"] = attr_int(0);
  call.inputs[1] = Tensor::from<float>({2, 3}, {1, 2, 3, 1, 1, 1});
  call.inputs[2] = Tensor::zeros(DType::kF32, {2, 3});
  call.inputs[3] = Tensor::from<float>({2, 3}, {0, 0, 0, 1, 1, 1});
  call.inputs[4] = Tensor::from<float>({2, 3}, std::vector<float>(6, 0.25f));
  expect_near(run_op(call)[0], {-1.99996f, 0, 5.99988f, 1.99996f, 3.99992f, 5.99988f});
}

TEST(BatchNormalization, DoubleAndEmpty) {
  OpCall call = batch_norm();
  call.inputs[0] = Tensor::from<double>({1, 2, 1}, {1, 3});
  std::vector<Tensor> out = run_op(call);
  EXPECT_NEAR(out[0].data<double>()[0], 0.999995, 1e-6);
  EXPECT_NEAR(out[0].data<double>()[1], 1, 1e-6);
  call.inputs[0] = Tensor::zeros(DType::kF32, {0, 2, 5});
  EXPECT_EQ(run_op(call)[0].numel(), 0);
}

TEST(BatchNormalization, TrainingModeUsesBatchStatisticsAndUpdatesRunningOnes) {
  OpCall call = batch_norm();
  call.opset = 15;
  call.attributes["training_mode"] = attr_int(1);
  call.num_outputs = 3;
  std::vector<Tensor> out = run_op(call);
  const float inv = 1.0f / std::sqrt(2.0f / 3.0f + 1e-5f);  // each channel: variance 2/3
  expect_near(out[0], {-inv, 0, inv, 1 - 1.5f * inv, 1, 1 + 1.5f * inv});
  expect_near(out[1], {0, 3});  // batch means equal the running ones
  expect_near(out[2], {0.9f + 0.1f * 2 / 3, 1.35f + 0.1f * 2 / 3});  // 0.9 * var + 0.1 * batch var
}

TEST(BatchNormalization, Errors) {
  OpCall call = batch_norm();
  call.opset = 6;
  call.num_outputs = 3;  // is_test defaults to 0: a training node
  EXPECT_THROW(run_op(call), Error);
  call = batch_norm();
  call.inputs[3] = Tensor::from<float>({3}, {0, 0, 0});
  EXPECT_THROW(run_op(call), Error);
  call = batch_norm();
  call.inputs[0] = Tensor::zeros(DType::kI32, {1, 2, 3});
  EXPECT_THROW(run_op(call), Error);
  call = batch_norm();
  call.inputs[0] = Tensor::zeros(DType::kF32, {2});
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
