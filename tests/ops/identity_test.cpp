#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(Identity, CopiesInput) {
  OpCall call{.op_type = "Identity"};
  call.inputs = {Tensor::from<float>({2, 2}, {1, 2, 3, 4})};
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {1, 2, 3, 4});
}

TEST(Dropout, InferenceKeepsEverythingAndMasksTrue) {
  OpCall call{.op_type = "Dropout", .num_outputs = 2};
  call.inputs = {Tensor::from<float>({3}, {1, 2, 3})};
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {1, 2, 3});
  EXPECT_EQ(values_of<bool>(out[1]), (std::vector<bool>{true, true, true}));
}

}  // namespace
}  // namespace strata::test
