// MaxUnpool (src/ops/max_unpool.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall unpool() {
  OpCall call = op_call("MaxUnpool", 11,
                        {{"kernel_shape", attr_ints({2, 2})}, {"strides", attr_ints({2, 2})}});
  call.inputs = {Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4}),
                 Tensor::from<int64_t>({1, 1, 2, 2}, {5, 7, 13, 15})};
  return call;
}

TEST(MaxUnpool, WritesEachValueAtItsIndex) {
  std::vector<Tensor> out = run_op(unpool());
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  expect_near(out[0], {0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});
}

TEST(MaxUnpool, OutputShapeKeepsTheCoordinates) {
  OpCall call = unpool();
  call.inputs.push_back(Tensor::from<int64_t>({4}, {1, 1, 5, 5}));
  std::vector<float> expected(25, 0.0f);
  expected[6] = 1, expected[8] = 2, expected[16] = 3, expected[18] = 4;
  expect_near(run_op(call)[0], expected);
}

TEST(MaxUnpool, Errors) {
  OpCall outside = unpool();
  outside.inputs[1] = Tensor::from<int64_t>({1, 1, 2, 2}, {5, 7, 13, 16});
  EXPECT_THROW(run_op(outside), Error);
  OpCall no_kernel = op_call("MaxUnpool", 11);
  no_kernel.inputs = unpool().inputs;
  EXPECT_THROW(run_op(no_kernel), Error);
}

}  // namespace
}  // namespace strata::test
