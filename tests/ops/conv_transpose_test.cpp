#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// X = [0, 1, 2] as [1,1,3] and a kernel [1, 2, 3] with stride 2: the full output has 7 elements.
OpCall transpose_1d() {
  OpCall call;
  call.op_type = "ConvTranspose";
  call.attributes["strides"] = attr_ints({2});
  call.inputs = {Tensor::from<float>({1, 1, 3}, {0, 1, 2}),
                 Tensor::from<float>({1, 1, 3}, {1, 2, 3})};
  return call;
}

TEST(ConvTranspose, Basic2dTwoOutputChannels) {
  OpCall call;
  call.op_type = "ConvTranspose";
  call.inputs = {Tensor::from<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}),
                 Tensor::from<float>({1, 2, 3, 3}, std::vector<float>(18, 1.f))};
  std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2, 5, 5}));
  const std::vector<float> plane = {0,  1,  3, 3,  2,  3,  8,  15, 12, 7,  9,  21, 36,
                                    27, 15, 9, 20, 33, 24, 13, 6,  13, 21, 15, 8};
  std::vector<float> both = plane;
  both.insert(both.end(), plane.begin(), plane.end());
  expect_near(out[0], both);
}

TEST(ConvTranspose, StridesPadsAndOutputPadding) {
  OpCall call = transpose_1d();
  call.attributes["pads"] = attr_ints({1, 0});
  call.attributes["output_padding"] = attr_ints({1});
  expect_near(run_op(call)[0], {0, 1, 2, 5, 4, 6, 0});
}

TEST(ConvTranspose, OutputShapeLargerThanFullLeavesBias) {
  OpCall call = transpose_1d();
  call.attributes["output_shape"] = attr_ints({8});
  call.inputs.push_back(Tensor::from<float>({1}, {0.5}));
  expect_near(run_op(call)[0], {0.5, 0.5, 1.5, 2.5, 5.5, 4.5, 6.5, 0.5});
}

TEST(ConvTranspose, OutputShapeSmallerTrimsOddPadFirst) {
  OpCall call = transpose_1d();
  call.attributes["output_shape"] = attr_ints({1, 1, 5});  // N and C may be included
  expect_near(run_op(call)[0], {0, 1, 2, 5, 4});
}

TEST(ConvTranspose, AutoPadSame) {
  OpCall call = transpose_1d();
  call.attributes["auto_pad"] = attr_string("SAME_UPPER");
  expect_near(run_op(call)[0], {0, 0, 1, 2, 5, 4});
  call.attributes["auto_pad"] = attr_string("SAME_LOWER");
  expect_near(run_op(call)[0], {0, 1, 2, 5, 4, 6});
}

TEST(ConvTranspose, GroupsDilationsAndBias) {
  OpCall call;
  call.op_type = "ConvTranspose";
  call.attributes["group"] = attr_int(2);
  call.attributes["dilations"] = attr_ints({2});
  call.inputs = {Tensor::from<float>({1, 2, 2}, {0, 1, 2, 3}),
                 Tensor::from<float>({2, 2, 2}, {1, 2, 3, 4, -1, 1, 0, 1}),
                 Tensor::from<float>({4}, {1, 2, 3, 4})};
  std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, 4, 4}));
  expect_near(out[0], {1, 2, 1, 3, 2, 5, 2, 6, 1, 0, 5, 6, 4, 4, 6, 7});
}

TEST(ConvTranspose, Double) {
  OpCall call = transpose_1d();
  call.inputs = {Tensor::from<double>({1, 1, 3}, {0, 1, 2}),
                 Tensor::from<double>({1, 1, 3}, {1, 2, 3})};
  EXPECT_EQ(values_of<double>(run_op(call)[0]), (std::vector<double>{0, 0, 1, 2, 5, 4, 6}));
}

TEST(ConvTranspose, Errors) {
  OpCall call = transpose_1d();
  call.inputs[1] = Tensor::from<float>({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(run_op(call), Error);  // X has 1 channel, W 2
  call = transpose_1d();
  call.attributes["output_shape"] = attr_ints({4, 4});
  EXPECT_THROW(run_op(call), Error);  // one spatial axis only
  call = transpose_1d();
  call.attributes["output_padding"] = attr_ints({-1});
  EXPECT_THROW(run_op(call), Error);
  call = transpose_1d();
  call.attributes["pads"] = attr_ints({5, 5});
  EXPECT_THROW(run_op(call), Error);  // negative output size
  call = transpose_1d();
  call.inputs.push_back(Tensor::from<float>({2}, {1, 2}));
  EXPECT_THROW(run_op(call), Error);  // bias size
  call = transpose_1d();
  call.attributes["group"] = attr_int(2);
  EXPECT_THROW(run_op(call), Error);  // 1 channel is not a multiple of 2 groups
}

}  // namespace
}  // namespace strata::test
