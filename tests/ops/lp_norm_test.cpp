// LpNormalization (src/ops/lp_norm.cpp): L1 and L2 along an axis; zero vectors stay zero.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(LpNormalization, DividesByTheNormAlongTheAxis) {
  OpCall l2 = op_call("LpNormalization", 1);
  l2.inputs = {Tensor::from<float>({2, 2}, {3, 4, 0, 0})};
  EXPECT_EQ(run_op(l2)[0].to_double(), (std::vector<double>{0.6f, 0.8f, 0, 0}));
  OpCall l1 = op_call("LpNormalization", 1, {{"p", attr_int(1)}, {"axis", attr_int(0)}});
  l1.inputs = {Tensor::from<float>({2, 2}, {1, -2, 3, 2})};
  EXPECT_EQ(run_op(l1)[0].to_double(), (std::vector<double>{0.25, -0.5, 0.75, 0.5}));
  OpCall bad = op_call("LpNormalization", 1, {{"p", attr_int(3)}});
  bad.inputs = {Tensor::from<float>({1}, {1})};
  EXPECT_THROW(run_op(bad), Error);
}

}  // namespace
}  // namespace strata::test
