#include "ops/infer_util.h"

namespace strata::test {
namespace {

TEST(Concat, Axis1) {
  OpCall call{.op_type = "Concat", .attributes = {{"axis", attr_int(1)}}};
  call.inputs = {Tensor::from<float>({2, 1}, {1, 2}), Tensor::from<float>({2, 2}, {3, 4, 5, 6})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {1, 3, 4, 2, 5, 6});
}

TEST(Concat, NegativeAxisWithEmptyInputInt32) {
  OpCall call{.op_type = "Concat", .attributes = {{"axis", attr_int(-1)}}};
  call.inputs = {Tensor::from<int32_t>({1, 2}, {1, 2}), Tensor::zeros(DType::kI32, {1, 0}),
                 Tensor::from<int32_t>({1, 1}, {3})};
  EXPECT_EQ(values_of<int32_t>(run_op(call)[0]), (std::vector<int32_t>{1, 2, 3}));
}

TEST(Concat, SymbolicAxisDimsAdd) {
  OpCall call{.op_type = "Concat", .attributes = {{"axis", attr_int(0)}}};
  std::vector<ops::Meta> out = infer_only(
      call, {meta(DType::kF32, {Dim::symbol("N"), 4}), meta(DType::kF32, {2, Dim::symbol("M")})});
  EXPECT_EQ(out[0].shape.str(), "[(N+2),4]");
}

TEST(Concat, Errors) {
  const std::vector<std::vector<Tensor>> bad = {
      {Tensor::zeros(DType::kF32, {2, 2}), Tensor::zeros(DType::kF32, {2, 2, 1})},  // ranks
      {Tensor::zeros(DType::kF32, {2, 2}), Tensor::zeros(DType::kF32, {3, 2})},     // dims
      {Tensor::zeros(DType::kF32, {2, 2}), Tensor::zeros(DType::kI64, {2, 2})},     // dtypes
      {Tensor::zeros(DType::kF32, {2}), Tensor::zeros(DType::kF32, {2})},  // axis 1 of rank 1
  };
  for (const std::vector<Tensor>& inputs : bad) {
    OpCall call{.op_type = "Concat", .attributes = {{"axis", attr_int(1)}}};
    call.inputs = inputs;
    EXPECT_THROW(run_op(call), Error);
  }
  OpCall no_axis{.op_type = "Concat"};
  no_axis.inputs = {Tensor::zeros(DType::kF32, {2})};
  EXPECT_THROW(run_op(no_axis), Error);
}

}  // namespace
}  // namespace strata::test
