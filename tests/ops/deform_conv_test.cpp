// DeformConv (src/ops/deform_conv.cpp): a 1x1 kernel of weight 2 on a 2x2 image, so each output is
// twice the input sampled at the displaced position.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall deform(float dy, float dx) {
  OpCall call = op_call("DeformConv", 19);
  std::vector<float> offset(8);
  for (size_t p = 0; p < 4; ++p) offset[p] = dy, offset[4 + p] = dx;
  call.inputs = {Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4}),
                 Tensor::from<float>({1, 1, 1, 1}, {2}),
                 Tensor::from<float>({1, 2, 2, 2}, std::span<const float>(offset))};
  return call;
}

TEST(DeformConv, ZeroOffsetsAreAConvolution) {
  expect_near(run_op(deform(0, 0))[0], {2, 4, 6, 8});
}

TEST(DeformConv, OffsetsSampleBilinearlyWithZerosOutside) {
  expect_near(run_op(deform(0, 1))[0], {4, 0, 8, 0});
  expect_near(run_op(deform(0, 0.5f))[0], {3, 2, 7, 4});
}

TEST(DeformConv, MaskAndBias) {
  OpCall call = deform(0, 0);
  call.inputs.push_back(Tensor::from<float>({1}, {1}));
  call.inputs.push_back(Tensor::from<float>({1, 1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}));
  expect_near(run_op(call)[0], {2, 3, 4, 5});
}

TEST(DeformConv, Errors) {
  OpCall offset = deform(0, 0);
  offset.inputs[2] = Tensor::from<float>({1, 1, 2, 2}, {0, 0, 0, 0});
  EXPECT_THROW(run_op(offset), Error);
  OpCall one_d = op_call("DeformConv", 19);
  one_d.inputs = {Tensor::from<float>({1, 1, 2}, {1, 2}), Tensor::from<float>({1, 1, 1}, {2}),
                  Tensor::from<float>({1, 2, 2}, {0, 0, 0, 0})};
  EXPECT_THROW(run_op(one_d), Error);
}

}  // namespace
}  // namespace strata::test
