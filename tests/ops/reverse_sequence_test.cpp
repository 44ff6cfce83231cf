// ReverseSequence (src/ops/reverse_sequence.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(ReverseSequence, TimeMajor) {
  OpCall call = op_call("ReverseSequence", 10);
  call.inputs = {Tensor::from<float>({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31}),
                 Tensor::from<int64_t>({2}, {4, 2})};
  expect_near(run_op(call)[0], {30, 11, 20, 1, 10, 21, 0, 31});
}

TEST(ReverseSequence, BatchMajor) {
  OpCall call =
      op_call("ReverseSequence", 10, {{"batch_axis", attr_int(0)}, {"time_axis", attr_int(1)}});
  call.inputs = {Tensor::from<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                 Tensor::from<int64_t>({2}, {2, 3})};
  EXPECT_EQ(values_of<int32_t>(run_op(call)[0]), (std::vector<int32_t>{2, 1, 3, 6, 5, 4}));
}

TEST(ReverseSequence, Errors) {
  OpCall too_long = op_call("ReverseSequence", 10);
  too_long.inputs = {Tensor::from<float>({2, 1}, {1, 2}), Tensor::from<int64_t>({1}, {3})};
  EXPECT_THROW(run_op(too_long), Error);
  OpCall same_axes =
      op_call("ReverseSequence", 10, {{"batch_axis", attr_int(0)}, {"time_axis", attr_int(0)}});
  same_axes.inputs = {Tensor::from<float>({2, 1}, {1, 2}), Tensor::from<int64_t>({2}, {1, 1})};
  EXPECT_THROW(run_op(same_axes), Error);
  OpCall wrong_count = op_call("ReverseSequence", 10);
  wrong_count.inputs = {Tensor::from<float>({2, 1}, {1, 2}), Tensor::from<int64_t>({2}, {1, 1})};
  EXPECT_THROW(run_op(wrong_count), Error);
}

}  // namespace
}  // namespace strata::test
