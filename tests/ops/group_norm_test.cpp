// GroupNormalization (src/ops/group_norm.cpp): statistics per group, scale per channel (21) or
// per group (18).
#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(GroupNormalization, NormalisesEachGroup) {
  // 4 channels of one value each in 2 groups: (1, 3) and (5, 9).
  const Tensor x = Tensor::from<float>({1, 4, 1}, {1, 3, 5, 9});
  OpCall v21 = op_call("GroupNormalization", 21,
                       {{"num_groups", attr_int(2)}, {"epsilon", attr_float(0.0f)}});
  v21.inputs = {x, Tensor::from<float>({4}, {1, 1, 2, 2}), Tensor::from<float>({4}, {0, 0, 0, 1})};
  EXPECT_EQ(run_op(v21)[0].to_double(), (std::vector<double>{-1, 1, -2, 3}));
  OpCall v18 = op_call("GroupNormalization", 18,
                       {{"num_groups", attr_int(2)}, {"epsilon", attr_float(0.0f)}});
  v18.inputs = {x, Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({2}, {0, 1})};
  EXPECT_EQ(run_op(v18)[0].to_double(), (std::vector<double>{-1, 1, -1, 3}));
  OpCall bad = op_call("GroupNormalization", 21, {{"num_groups", attr_int(3)}});
  bad.inputs = {x, Tensor::from<float>({4}, {1, 1, 1, 1}), Tensor::from<float>({4}, {0, 0, 0, 0})};
  EXPECT_THROW(run_op(bad), Error);  // 4 channels in 3 groups
}

}  // namespace
}  // namespace strata::test
