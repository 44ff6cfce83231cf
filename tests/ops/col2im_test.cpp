// Col2Im (src/ops/col2im.cpp).
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

TEST(Col2Im, OverlappingBlocksAdd) {
  OpCall call = op_call("Col2Im", 18);
  call.inputs = {Tensor::from<float>({1, 2, 3}, {1, 2, 3, 10, 20, 30}),
                 Tensor::from<int64_t>({1}, {4}), Tensor::from<int64_t>({1}, {2})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 4}));
  expect_near(out[0], {1, 12, 23, 30});
}

TEST(Col2Im, StridesAndPadsIn2D) {
  // A 2x2 image cut into 1x1 blocks with stride 1 and one pad on each side: 4x4 positions, of
  // which the inner 2x2 land in the image.
  OpCall call = op_call("Col2Im", 18, {{"pads", attr_ints({1, 1, 1, 1})}});
  std::vector<float> in(16, 0.0f);
  in[5] = 1, in[6] = 2, in[9] = 3, in[10] = 4;
  call.inputs = {Tensor::from<float>({1, 1, 16}, std::span<const float>(in)),
                 Tensor::from<int64_t>({2}, {2, 2}), Tensor::from<int64_t>({2}, {1, 1})};
  expect_near(run_op(call)[0], {1, 2, 3, 4});
}

TEST(Col2Im, Errors) {
  OpCall positions = op_call("Col2Im", 18);
  positions.inputs = {Tensor::from<float>({1, 2, 2}, {1, 2, 3, 4}), Tensor::from<int64_t>({1}, {4}),
                      Tensor::from<int64_t>({1}, {2})};
  EXPECT_THROW(run_op(positions), Error);
  OpCall ranks = op_call("Col2Im", 18);
  ranks.inputs = {Tensor::from<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6}),
                  Tensor::from<int64_t>({2}, {4, 4}), Tensor::from<int64_t>({1}, {2})};
  EXPECT_THROW(run_op(ranks), Error);
  // Found by fuzz_graph (col2im-block-size-overflow.bin): blocks of 2^22 per axis, padded to fit,
  // multiplied past int64 (UBSan); now a size error.
  const int64_t big = int64_t(1) << 22;
  OpCall huge = op_call("Col2Im", 18, {{"pads", attr_ints({big, big, big, big, big, big})}});
  huge.inputs = {Tensor::from<float>({1, 1, 1}, {1}), Tensor::from<int64_t>({3}, {1, 1, 1}),
                 Tensor::from<int64_t>({3}, {big, big, big})};
  expect_error([&] { run_op(huge); }, {"size overflow"});
}

}  // namespace
}  // namespace strata::test
