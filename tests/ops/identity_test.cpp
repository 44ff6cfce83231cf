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

namespace strata::test {
namespace {

TEST(Dropout, TrainingWithZeroRatioIsIdentity) {
  OpCall call{.op_type = "Dropout", .num_outputs = 2};
  call.inputs = {Tensor::from<float>({3}, {1, 2, 3}), Tensor::from<float>({}, {0.0f}),
                 Tensor::from<bool>({}, {true})};
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {1, 2, 3});
  EXPECT_EQ(values_of<bool>(out[1]), (std::vector<bool>{true, true, true}));
}

TEST(Dropout, TrainingKeepsOrZeroesAndScales) {
  OpCall call{.op_type = "Dropout", .num_outputs = 2};
  call.attributes["seed"] = attr_int(7);
  std::vector<float> ones(1000, 1.0f);
  call.inputs = {Tensor::from<float>({1000}, std::span<const float>(ones)),
                 Tensor::from<float>({}, {0.25f}), Tensor::from<bool>({}, {true})};
  std::vector<Tensor> out = run_op(call);
  int kept = 0;
  for (int i = 0; i < 1000; ++i) {
    const float v = out[0].data<float>()[i];
    const bool m = out[1].data<bool>()[i];
    EXPECT_FLOAT_EQ(v, m ? 1.0f / 0.75f : 0.0f);
    kept += m;
  }
  EXPECT_GT(kept, 650);  // 750 expected; far outside chance for a correct kernel
  EXPECT_LT(kept, 850);
}

}  // namespace
}  // namespace strata::test
