#include "ops/infer_util.h"

namespace strata::test {
namespace {

std::vector<int64_t> reshaped(std::vector<int64_t> in_shape, std::vector<int64_t> shape,
                              int64_t allowzero = 0) {
  OpCall call{
      .op_type = "Reshape", .opset = 14, .attributes = {{"allowzero", attr_int(allowzero)}}};
  Tensor shape_tensor = Tensor::from<int64_t>({int64_t(shape.size())}, shape);
  call.inputs = {Tensor::zeros(DType::kF32, in_shape), shape_tensor};
  return run_op(call)[0].shape();
}

TEST(Reshape, ZeroCopiesAndMinusOneInfers) {
  EXPECT_EQ(reshaped({2, 3, 4}, {0, -1}), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(reshaped({2, 3, 4}, {4, 0, 2}), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_EQ(reshaped({2, 3, 4}, {-1}), (std::vector<int64_t>{24}));
  EXPECT_EQ(reshaped({0, 3}, {3, 0}, 1), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(reshaped({1}, {}), (std::vector<int64_t>{}));
}

TEST(Reshape, KeepsValuesOfAnyDtype) {
  OpCall call{.op_type = "Reshape"};
  call.inputs = {Tensor::from<int8_t>({2, 2}, {1, 2, 3, 4}), Tensor::from<int64_t>({1}, {4})};
  EXPECT_EQ(values_of<int8_t>(run_op(call)[0]), (std::vector<int8_t>{1, 2, 3, 4}));
}

TEST(Reshape, SymbolicDimsCancel) {
  OpCall call{.op_type = "Reshape"};
  const Tensor shape = Tensor::from<int64_t>({2}, {0, -1});
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3, 4}), known(shape)});
  EXPECT_EQ(out[0].shape.str(), "[N,12]");
  const Tensor flat = Tensor::from<int64_t>({2}, {-1, 6});
  out = infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3, 4}), known(flat)});
  EXPECT_EQ(out[0].shape.str(), "[(2*N),6]");
  EXPECT_THROW(infer_only(call, {meta(DType::kF32, {2, 3}), meta(DType::kI64, {2})}), NotStatic);
}

TEST(Reshape, Errors) {
  EXPECT_THROW(reshaped({2, 3}, {4, 2}), Error);      // count mismatch
  EXPECT_THROW(reshaped({2, 3}, {-1, -1}), Error);    // two -1
  EXPECT_THROW(reshaped({2, 3}, {4, -1}), Error);     // not divisible
  EXPECT_THROW(reshaped({2, 3}, {-2, 3}), Error);     // invalid dim
  EXPECT_THROW(reshaped({2, 3}, {0, 0, 0}), Error);   // 0 beyond the input rank
  EXPECT_THROW(reshaped({0, 3}, {0, -1}, 1), Error);  // allowzero with 0 and -1
}

}  // namespace
}  // namespace strata::test
