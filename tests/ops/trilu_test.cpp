#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall trilu(Tensor input, int64_t upper, const Tensor* k = nullptr) {
  OpCall call;
  call.op_type = "Trilu";
  call.opset = 14;
  call.attributes["upper"] = attr_int(upper);
  call.inputs = {std::move(input)};
  if (k) call.inputs.push_back(*k);
  return call;
}

const Tensor kMatrix = Tensor::from<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

TEST(Trilu, UpperAndLower) {
  expect_near(run_op(trilu(kMatrix, 1))[0], {1, 2, 3, 0, 5, 6, 0, 0, 9});
  expect_near(run_op(trilu(kMatrix, 0))[0], {1, 0, 0, 4, 5, 0, 7, 8, 9});
}

TEST(Trilu, DiagonalOffsetK) {
  const Tensor plus1 = Tensor::from<int64_t>({}, {1});
  const Tensor minus1 = Tensor::from<int64_t>({}, {-1});
  expect_near(run_op(trilu(kMatrix, 1, &plus1))[0], {0, 2, 3, 0, 0, 6, 0, 0, 0});
  expect_near(run_op(trilu(kMatrix, 0, &minus1))[0], {0, 0, 0, 4, 0, 0, 7, 8, 0});
  const Tensor far = Tensor::from<int64_t>({}, {-5});
  expect_near(run_op(trilu(kMatrix, 1, &far))[0], {1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST(Trilu, BatchedIntegersAndEmpty) {
  std::vector<Tensor> out = run_op(trilu(Tensor::from<int32_t>({2, 1, 2}, {1, 2, 3, 4}), 0));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{1, 0, 3, 0}));
  EXPECT_EQ(run_op(trilu(Tensor::zeros(DType::kF32, {0, 3}), 1))[0].numel(), 0);
}

TEST(Trilu, Errors) {
  EXPECT_THROW(run_op(trilu(Tensor::from<float>({3}, {1, 2, 3}), 1)), Error);
  const Tensor not_scalar = Tensor::from<int64_t>({2}, {1, 2});
  EXPECT_THROW(run_op(trilu(kMatrix, 1, &not_scalar)), Error);
}

}  // namespace
}  // namespace strata::test
