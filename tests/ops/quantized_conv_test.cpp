// ConvInteger and QLinearConv against sums worked out by hand: zero points per tensor and per
// output channel, pads and groups through Conv's attributes, the bias, rounding half to even and
// saturation; bad scales and zero points fail naming the input.
#include <gtest/gtest.h>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// x [1,1,3,3] = 1..9 (zero point 1: 0..8), w [2,1,2,2] with zero points 0 and 2 per channel.
OpCall conv_integer() {
  OpCall call = op_call("ConvInteger", 10);
  call.inputs = {Tensor::from<uint8_t>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                 Tensor::from<uint8_t>({2, 1, 2, 2}, {1, 0, 0, 1, 3, 3, 3, 3}),
                 Tensor::from<uint8_t>({}, {1}), Tensor::from<uint8_t>({2}, {0, 2})};
  return call;
}

TEST(QuantizedConv, ConvIntegerSubtractsZeroPointsPerTensorAndPerChannel) {
  const Tensor y = run_op(conv_integer())[0];
  EXPECT_EQ(y.dtype(), DType::kI32);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 2, 2}));
  // x - 1 = [[0 1 2] [3 4 5] [6 7 8]]; channel 0 adds the diagonal pair, channel 1 the window
  // sum (weights 3 - 2 = 1).
  EXPECT_EQ(y.to_int64(), (std::vector<int64_t>{4, 6, 10, 12, 8, 12, 20, 24}));
}

// No output channels (w [0,1,2,2]): an empty output, not a division by zero (found by fuzz_graph).
TEST(QuantizedConv, ConvIntegerWithNoOutputChannelsGivesAnEmptyOutput) {
  OpCall call = op_call("ConvInteger", 10);
  call.inputs = {Tensor::from<uint8_t>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                 Tensor::zeros(DType::kU8, {0, 1, 2, 2})};
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 0, 2, 2}));
}

TEST(QuantizedConv, ConvIntegerTakesConvAttributes) {
  OpCall call = conv_integer();
  call.attributes["pads"] = attr_ints({1, 1, 1, 1});
  call.attributes["strides"] = attr_ints({2, 2});
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 2, 2, 2}));
  // Windows at (-1,-1), (-1,1), (1,-1), (1,1) of the padded x - 1 (pads are zero after the
  // zero point: the padded value is x_zero_point itself).
  EXPECT_EQ(y.to_int64(), (std::vector<int64_t>{0, 2, 6, 12, 0, 3, 9, 24}));
}

OpCall qlinear_conv() {
  OpCall call = op_call("QLinearConv", 10);
  call.inputs = {Tensor::from<uint8_t>({1, 1, 2, 2}, {10, 20, 30, 40}),
                 Tensor::from<float>({}, {0.5f}),
                 Tensor::from<uint8_t>({}, {0}),
                 Tensor::from<int8_t>({2, 1, 1, 1}, {2, -3}),
                 Tensor::from<float>({2}, {0.25f, 1.0f}),
                 Tensor::from<int8_t>({2}, {0, 0}),
                 Tensor::from<float>({}, {1.0f}),
                 Tensor::from<uint8_t>({}, {5}),
                 Tensor::from<int32_t>({2}, {1, 0})};
  return call;
}

TEST(QuantizedConv, QLinearConvScalesRoundsHalfToEvenAndSaturates) {
  const Tensor y = run_op(qlinear_conv())[0];
  EXPECT_EQ(y.dtype(), DType::kU8);
  // Channel 0: (2x + 1) · 0.5 · 0.25 = [2.625 5.125 7.625 10.125] → [3 5 8 10] + 5.
  // Channel 1: -3x · 0.5 = [-15 -30 -45 -60] + 5 → saturated at 0 below.
  EXPECT_EQ(y.to_int64(), (std::vector<int64_t>{8, 10, 13, 15, 0, 0, 0, 0}));
  OpCall tie = qlinear_conv();
  tie.inputs[0] = Tensor::from<uint8_t>({1, 1, 2, 2}, {1, 3, 5, 7});
  tie.inputs[8] = Tensor::from<int32_t>({2}, {0, 0});
  tie.inputs[4] = Tensor::from<float>({2}, {0.5f, 1.0f});
  // Channel 0: 2x · 0.25 = [0.5 1.5 2.5 3.5] → half to even [0 2 2 4] + 5.
  EXPECT_EQ(run_op(tie)[0].to_int64()[0], 5);
  EXPECT_EQ(run_op(tie)[0].to_int64()[1], 7);
  EXPECT_EQ(run_op(tie)[0].to_int64()[2], 7);
  EXPECT_EQ(run_op(tie)[0].to_int64()[3], 9);
}

void expect_failure_naming(const OpCall& call, const std::string& words) {
  try {
    run_op(call);
    ADD_FAILURE() << "no error; expected one naming " << words;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(QuantizedConv, BadScalesAndZeroPointsFailNamingTheInput) {
  OpCall zero_scale = qlinear_conv();
  zero_scale.inputs[1] = Tensor::from<float>({}, {0.0f});
  expect_failure_naming(zero_scale, "x_scale");
  OpCall negative = qlinear_conv();
  negative.inputs[4] = Tensor::from<float>({2}, {0.25f, -1.0f});
  expect_failure_naming(negative, "w_scale");
  OpCall per_axis = qlinear_conv();
  per_axis.inputs[4] = Tensor::from<float>({3}, {1, 1, 1});
  expect_failure_naming(per_axis, "w_scale holds 3 values");
  OpCall zero_points = conv_integer();
  zero_points.inputs[3] = Tensor::from<uint8_t>({3}, {0, 0, 0});
  expect_failure_naming(zero_points, "w_zero_point holds 3 values");
  OpCall mixed = conv_integer();
  mixed.inputs[2] = Tensor::from<int8_t>({}, {1});
  expect_failure_naming(mixed, "zero point 2 has dtype int8");
}

}  // namespace
}  // namespace strata::test
