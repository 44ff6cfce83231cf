#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(Transpose, DefaultReversesAxes) {
  OpCall call{.op_type = "Transpose"};
  call.inputs = {Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{3, 2}));
  expect_near(out[0], {1, 4, 2, 5, 3, 6});
}

TEST(Transpose, PermOn3DInt64) {
  OpCall call{.op_type = "Transpose", .attributes = {{"perm", attr_ints({1, 2, 0})}}};
  call.inputs = {Tensor::from<int64_t>({2, 1, 3}, {0, 1, 2, 3, 4, 5})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, BoolAndEmpty) {
  OpCall call{.op_type = "Transpose"};
  call.inputs = {Tensor::from<bool>({1, 2}, {true, false})};
  EXPECT_EQ(values_of<bool>(run_op(call)[0]), (std::vector<bool>{true, false}));
  call.inputs = {Tensor::zeros(DType::kF16, {0, 3})};
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{3, 0}));
}

TEST(Transpose, RejectsBadPerm) {
  for (std::vector<int64_t> perm : {std::vector<int64_t>{0}, {0, 0}, {0, 2}, {-1, 0}}) {
    OpCall call{.op_type = "Transpose", .attributes = {{"perm", attr_ints(perm)}}};
    call.inputs = {Tensor::zeros(DType::kF32, {2, 2})};
    EXPECT_THROW(run_op(call), Error);
  }
}

}  // namespace
}  // namespace strata::test
