#include "ops/infer_util.h"

namespace strata::test {
namespace {

std::vector<int64_t> flattened(int64_t axis, int64_t opset = 13) {
  OpCall call{.op_type = "Flatten", .opset = opset, .attributes = {{"axis", attr_int(axis)}}};
  call.inputs = {Tensor::zeros(DType::kF64, {2, 3, 4})};
  return run_op(call)[0].shape();
}

TEST(Flatten, Axes) {
  EXPECT_EQ(flattened(0), (std::vector<int64_t>{1, 24}));
  EXPECT_EQ(flattened(1), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(flattened(3), (std::vector<int64_t>{24, 1}));
  EXPECT_EQ(flattened(-1), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(flattened(-3), (std::vector<int64_t>{1, 24}));
}

TEST(Flatten, DefaultAxisKeepsValues) {
  OpCall call{.op_type = "Flatten"};
  call.inputs = {Tensor::from<float>({2, 1, 2}, {1, 2, 3, 4})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {1, 2, 3, 4});
}

TEST(Flatten, Symbolic) {
  OpCall call{.op_type = "Flatten"};
  EXPECT_EQ(infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3, 4})})[0].shape.str(),
            "[N,12]");
}

TEST(Flatten, AxisOutOfRange) {
  EXPECT_THROW(flattened(4), Error);
  EXPECT_THROW(flattened(-4), Error);
}

}  // namespace
}  // namespace strata::test
