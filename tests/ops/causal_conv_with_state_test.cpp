// CausalConvWithState (src/ops/causal_conv_with_state.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

const Tensor kInput = Tensor::from<float>({1, 1, 3}, {1, 2, 3});
const Tensor kWeight = Tensor::from<float>({1, 1, 2}, {1, 10});

TEST(CausalConvWithState, ZeroStateWhenAbsent) {
  OpCall call = op_call("CausalConvWithState", 27);
  call.inputs = {kInput, kWeight};
  call.num_outputs = 2;
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {10, 21, 32});
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{1, 1, 1}));
  expect_near(out[1], {3});
}

TEST(CausalConvWithState, PastStateBiasAndSilu) {
  OpCall call = op_call("CausalConvWithState", 27, {{"activation", attr_string("silu")}});
  call.inputs = {kInput, kWeight, Tensor::from<float>({1}, {1}),
                 Tensor::from<float>({1, 1, 1}, {5})};
  call.num_outputs = 2;
  std::vector<Tensor> out = run_op(call);
  // Before the activation: 16, 22, 33; silu(x) = x / (1 + exp(-x)).
  expect_near(out[0], {15.99999f, 22.0f, 33.0f}, 1e-4f);
  expect_near(out[1], {3});
}

TEST(CausalConvWithState, Errors) {
  OpCall activation = op_call("CausalConvWithState", 27, {{"activation", attr_string("relu")}});
  activation.inputs = {kInput, kWeight};
  EXPECT_THROW(run_op(activation), Error);
  OpCall weight = op_call("CausalConvWithState", 27);
  weight.inputs = {kInput, Tensor::from<float>({2, 1, 2}, {1, 2, 3, 4})};
  EXPECT_THROW(run_op(weight), Error);
  OpCall past = op_call("CausalConvWithState", 27);
  past.inputs = {kInput, kWeight, Tensor(), Tensor::from<float>({1, 1, 2}, {1, 2})};
  EXPECT_THROW(run_op(past), Error);
}

}  // namespace
}  // namespace strata::test
