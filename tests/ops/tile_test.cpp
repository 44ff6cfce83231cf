#include "ops/infer_util.h"

namespace strata::test {
namespace {

TEST(Tile, Repeats2D) {
  OpCall call{.op_type = "Tile"};
  call.inputs = {Tensor::from<int32_t>({2, 3}, {0, 1, 2, 3, 4, 5}), int64s({2, 2})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5,
                                                              0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
}

TEST(Tile, ZeroRepeatsAndOnes) {
  OpCall call{.op_type = "Tile"};
  call.inputs = {Tensor::from<float>({2}, {1, 2}), int64s({0})};
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{0}));
  call.inputs = {Tensor::from<float>({2}, {1, 2}), int64s({1})};
  expect_near(run_op(call)[0], {1, 2});
}

TEST(Tile, Errors) {
  OpCall call{.op_type = "Tile"};
  call.inputs = {Tensor::zeros(DType::kF32, {2}), int64s({1, 1})};
  EXPECT_THROW(run_op(call), Error);
  call.inputs = {Tensor::zeros(DType::kF32, {2}), int64s({-1})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
