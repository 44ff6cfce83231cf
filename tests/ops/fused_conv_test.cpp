// FusedConv's reference kernel: Conv, then the residual, then the activation.
#include "ops/fused_conv.h"

#include <gtest/gtest.h>

#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

// x [1,1,2,2] convolved with a 1x1 weight of 2 and bias -1: y = 2x - 1.
OpCall fused_call(const std::string& activation, bool residual) {
  OpCall call = op_call("FusedConv", 17, {{"activation", attr_string(activation)}});
  call.inputs = {Tensor::from<float>({1, 1, 2, 2}, {-1, 0, 1, 2}),
                 Tensor::from<float>({1, 1, 1, 1}, {2}), Tensor::from<float>({1}, {-1})};
  if (residual) call.inputs.push_back(Tensor::from<float>({1, 1, 2, 2}, {0.5f, 0.5f, 0.5f, -4}));
  return call;
}

TEST(FusedConv, ConvThenResidualThenActivation) {
  expect_near(run_op(fused_call("", false))[0], {-3, -1, 1, 3});
  expect_near(run_op(fused_call("Relu", false))[0], {0, 0, 1, 3});
  expect_near(run_op(fused_call("", true))[0], {-2.5f, -0.5f, 1.5f, -1});
  expect_near(run_op(fused_call("Relu", true))[0], {0, 0, 1.5f, 0});
  OpCall clip = fused_call("Clip", false);
  clip.attributes["activation_alpha"] = attr_float(-2);
  clip.attributes["activation_beta"] = attr_float(2);
  expect_near(run_op(clip)[0], {-2, -1, 1, 2});
  const float silu_1 = 1 / (1 + std::exp(-1.0f));
  expect_near(
      run_op(fused_call("Silu", false))[0],
      {-3 / (1 + std::exp(3.0f)), -1 / (1 + std::exp(1.0f)), silu_1, 3 / (1 + std::exp(-3.0f))});
}

TEST(FusedConv, BadActivationAndResidualShape) {
  expect_error([] { run_op(fused_call("Swish", false)); }, {"activation", "Swish"});
  OpCall call = fused_call("", false);
  call.inputs.push_back(Tensor::zeros(DType::kF32, {1, 1, 3, 3}));
  expect_error([&] { run_op(call); }, {"residual Z"});
  OpCall clip = fused_call("Clip", false);
  clip.attributes["activation_alpha"] = attr_float(1);
  clip.attributes["activation_beta"] = attr_float(0);
  expect_error([&] { run_op(clip); }, {"activation_alpha"});
}

}  // namespace
}  // namespace strata::test
