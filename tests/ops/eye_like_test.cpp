#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall eye_like(Tensor input, int64_t k = 0, int64_t dtype = -1) {
  OpCall call;
  call.op_type = "EyeLike";
  call.attributes["k"] = attr_int(k);
  if (dtype >= 0) call.attributes["dtype"] = attr_int(dtype);
  call.inputs = {std::move(input)};
  return call;
}

TEST(EyeLike, MainDiagonal) {
  std::vector<Tensor> out = run_op(eye_like(Tensor::zeros(DType::kF32, {2, 3})));
  expect_near(out[0], {1, 0, 0, 0, 1, 0});
}

TEST(EyeLike, OffDiagonalsAndDtypeAttribute) {
  std::vector<Tensor> upper = run_op(eye_like(Tensor::zeros(DType::kI32, {3, 3}), 1));
  EXPECT_EQ(values_of<int32_t>(upper[0]), (std::vector<int32_t>{0, 1, 0, 0, 0, 1, 0, 0, 0}));
  std::vector<Tensor> lower = run_op(eye_like(Tensor::zeros(DType::kF32, {3, 2}), -1, 7));
  EXPECT_EQ(lower[0].dtype(), DType::kI64);
  EXPECT_EQ(values_of<int64_t>(lower[0]), (std::vector<int64_t>{0, 0, 1, 0, 0, 1}));
  std::vector<Tensor> far = run_op(eye_like(Tensor::zeros(DType::kF32, {2, 2}), 5));
  expect_near(far[0], {0, 0, 0, 0});
}

TEST(EyeLike, Errors) {
  EXPECT_THROW(run_op(eye_like(Tensor::zeros(DType::kF32, {2, 2, 2}))), Error);
  EXPECT_THROW(run_op(eye_like(Tensor::zeros(DType::kF32, {2, 2}), 0, 8)), Error);  // string
}

}  // namespace
}  // namespace strata::test
