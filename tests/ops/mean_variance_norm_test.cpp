// MeanVarianceNormalization (src/ops/mean_variance_norm.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(MeanVarianceNormalization, PerChannelByDefault) {
  OpCall call = op_call("MeanVarianceNormalization", 13);
  call.inputs = {Tensor::from<float>({1, 2, 1, 2}, {1, 3, 2, 6})};
  expect_near(run_op(call)[0], {-1, 1, -1, 1});
}

TEST(MeanVarianceNormalization, GivenAxesAndConstantRows) {
  OpCall call = op_call("MeanVarianceNormalization", 13, {{"axes", attr_ints({1})}});
  call.inputs = {Tensor::from<float>({2, 2}, {0, 2, 1, 1})};
  expect_near(run_op(call)[0], {-1, 1, 0, 0});
  OpCall bad = op_call("MeanVarianceNormalization", 13, {{"axes", attr_ints({2})}});
  bad.inputs = {Tensor::from<float>({2, 2}, {0, 2, 1, 1})};
  EXPECT_THROW(run_op(bad), Error);
}

}  // namespace
}  // namespace strata::test
