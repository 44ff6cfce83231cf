#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// X [2, 2, 2] normalised over the last two axes, Scale and B of shape [2] broadcast to [2, 2].
OpCall layer_norm() {
  OpCall call;
  call.op_type = "LayerNormalization";
  call.attributes["axis"] = attr_int(1);
  call.inputs = {Tensor::from<float>({2, 2, 2}, {1, 2, 3, 4, 0, 0, 1, 3}),
                 Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({2}, {0.5, 0})};
  return call;
}

TEST(LayerNormalization, AxisWithBroadcastScaleAndStatistics) {
  OpCall call = layer_norm();
  call.num_outputs = 3;
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {-0.8416354f, -0.8944236f, 0.9472118f, 2.6832708f, -0.3164939f, -1.6329877f,
                       0.5f, 3.2659754f});
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 1, 1}));
  expect_near(out[1], {2.5, 1});
  expect_near(out[2], {0.8944236f, 0.8164939f});
}

TEST(LayerNormalization, DefaultLastAxisWithoutBias) {
  OpCall call;
  call.op_type = "LayerNormalization";
  call.inputs = {Tensor::from<float>({2, 2}, {1, 3, 5, 5}), Tensor::from<float>({2}, {1, 1})};
  expect_near(run_op(call)[0], {-0.999995f, 0.999995f, 0, 0});
}

TEST(LayerNormalization, NegativeAxisDoubleAndEmpty) {
  OpCall call;
  call.op_type = "LayerNormalization";
  call.attributes["axis"] = attr_int(-2);
  call.inputs = {Tensor::from<double>({1, 2, 1}, {0, 2}), Tensor::from<double>({1}, {3})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_NEAR(out[0].data<double>()[1], 3 / std::sqrt(1 + 1e-5), 1e-9);
  call.inputs[0] = Tensor::zeros(DType::kF64, {0, 2, 1});
  EXPECT_EQ(run_op(call)[0].numel(), 0);
}

TEST(LayerNormalization, Errors) {
  OpCall call = layer_norm();
  call.attributes["axis"] = attr_int(3);
  EXPECT_THROW(run_op(call), Error);
  call = layer_norm();
  call.inputs[1] = Tensor::from<float>({3}, {1, 1, 1});
  EXPECT_THROW(run_op(call), Error);
  call = layer_norm();
  call.inputs[2] = Tensor::from<double>({2}, {0, 0});
  EXPECT_THROW(run_op(call), Error);
  call = layer_norm();
  call.attributes["stash_type"] = attr_int(7);
  EXPECT_THROW(run_op(call), Error);
  call = layer_norm();
  call.inputs[0] = Tensor::zeros(DType::kI32, {2, 2, 2});
  EXPECT_THROW(run_op(call), Error);
}

// RMSNormalization: x / sqrt(mean(x^2) + eps) * scale over the trailing axes; no centring.
TEST(RMSNormalization, NormalisesByTheRootMeanSquare) {
  OpCall call = op_call("RMSNormalization", 23, {{"epsilon", attr_float(0.0f)}});
  call.inputs = {Tensor::from<float>({2, 2}, {3, 4, -1, 1}), Tensor::from<float>({2}, {1, 2})};
  // rows: rms(3, 4) = sqrt(12.5), rms(-1, 1) = 1
  const std::vector<double> y = run_op(call)[0].to_double();
  const double r = std::sqrt(12.5);
  const std::vector<double> expected = {3 / r, 8 / r, -1, 2};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], expected[i], 1e-6) << i;
  OpCall axis0 = op_call("RMSNormalization", 23, {{"axis", attr_int(0)}});
  axis0.inputs = {Tensor::from<float>({2, 2}, {1, 1, 1, 1}), Tensor::from<float>({}, {3})};
  for (double v : run_op(axis0)[0].to_double()) EXPECT_NEAR(v, 3 / std::sqrt(1 + 1e-5), 1e-6);
  OpCall bad = op_call("RMSNormalization", 23);
  bad.inputs = {Tensor::from<float>({2, 2}, {1, 1, 1, 1}), Tensor::from<float>({3}, {1, 1, 1})};
  EXPECT_THROW(run_op(bad), Error);
}

}  // namespace
}  // namespace strata::test
