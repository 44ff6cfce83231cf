// Det (src/ops/det.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(Det, TwoByTwo) {
  OpCall call = op_call("Det", 11);
  call.inputs = {Tensor::from<float>({2, 2}, {1, 2, 3, 4})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].rank(), 0);
  expect_near(out[0], {-2});
}

TEST(Det, BatchWithPivotingAndASingularMatrix) {
  OpCall call = op_call("Det", 11);
  call.inputs = {Tensor::from<double>({3, 3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 2,  //
                                                  0, 1, 0, 1, 0, 0, 0, 0, 1,  //
                                                  1, 2, 3, 2, 4, 6, 0, 1, 1})};
  EXPECT_EQ(values_of<double>(run_op(call)[0]), (std::vector<double>{8, -1, 0}));
}

TEST(Det, RejectsNonSquareMatrices) {
  OpCall call = op_call("Det", 11);
  call.inputs = {Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
