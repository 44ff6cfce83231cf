// AffineGrid (src/ops/affine_grid.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

const Tensor kSize = Tensor::from<int64_t>({4}, {1, 1, 2, 2});

TEST(AffineGrid, IdentityAtPixelCentres) {
  OpCall call = op_call("AffineGrid", 20);
  call.inputs = {Tensor::from<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0}), kSize};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2, 2, 2}));
  expect_near(out[0], {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(AffineGrid, AlignCornersWithShiftAndScale) {
  OpCall call = op_call("AffineGrid", 20, {{"align_corners", attr_int(1)}});
  call.inputs = {Tensor::from<float>({1, 2, 3}, {1, 0, 1, 0, 2, 0}), kSize};
  expect_near(run_op(call)[0], {0, -2, 2, -2, 0, 2, 2, 2});
}

TEST(AffineGrid, ThreeDimensions) {
  OpCall call = op_call("AffineGrid", 20, {{"align_corners", attr_int(1)}});
  call.inputs = {Tensor::from<float>({1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}),
                 Tensor::from<int64_t>({5}, {1, 1, 2, 1, 1})};
  expect_near(run_op(call)[0], {0, 0, -1, 0, 0, 1});  // x, y, z; z runs over D
}

TEST(AffineGrid, Errors) {
  OpCall theta = op_call("AffineGrid", 20);
  theta.inputs = {Tensor::from<float>({1, 3, 4}, std::vector<float>(12, 0.0f)), kSize};
  EXPECT_THROW(run_op(theta), Error);
  OpCall size = op_call("AffineGrid", 20);
  size.inputs = {Tensor::from<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0}),
                 Tensor::from<int64_t>({3}, {1, 1, 2})};
  EXPECT_THROW(run_op(size), Error);
}

}  // namespace
}  // namespace strata::test
