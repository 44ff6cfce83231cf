#include "ops/infer_util.h"

namespace strata::test {
namespace {

TEST(Expand, BroadcastsBothWays) {
  OpCall call{.op_type = "Expand"};
  call.inputs = {Tensor::from<float>({3, 1}, {1, 2, 3}), int64s({2, 1, 2})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3, 2}));
  expect_near(out[0], {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
}

TEST(Expand, ScalarToEmptyAndBool) {
  OpCall call{.op_type = "Expand"};
  call.inputs = {Tensor::from<bool>({}, {true}), int64s({2})};
  EXPECT_EQ(values_of<bool>(run_op(call)[0]), (std::vector<bool>{true, true}));
  call.inputs = {Tensor::from<float>({1}, {5}), int64s({0})};
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{0}));
}

TEST(Expand, Errors) {
  OpCall call{.op_type = "Expand"};
  call.inputs = {Tensor::zeros(DType::kF32, {3}), int64s({2})};
  EXPECT_THROW(run_op(call), Error);
  call.inputs = {Tensor::zeros(DType::kF32, {3}), int64s({-1})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
