#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall gather_elements(Tensor data, Tensor indices, int64_t axis) {
  OpCall call;
  call.op_type = "GatherElements";
  call.attributes["axis"] = attr_int(axis);
  call.inputs = {std::move(data), std::move(indices)};
  return call;
}

TEST(GatherElements, Axis1) {
  std::vector<Tensor> out = run_op(gather_elements(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                                   Tensor::from<int64_t>({2, 2}, {0, 0, 1, 0}), 1));
  expect_near(out[0], {1, 1, 4, 3});
}

TEST(GatherElements, Axis0WithNegativeIndicesAndSmallerIndices) {
  // indices may be smaller than data on the other axes: out[i][j] = data[idx[i][j]][j].
  std::vector<Tensor> out =
      run_op(gather_elements(Tensor::from<int32_t>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                             Tensor::from<int32_t>({2, 2}, {1, -1, 2, 0}), 0));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{4, 8, 7, 2}));
}

TEST(GatherElements, NegativeAxis) {
  std::vector<Tensor> out = run_op(gather_elements(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                                   Tensor::from<int64_t>({2, 1}, {1, 0}), -1));
  expect_near(out[0], {2, 3});
}

TEST(GatherElements, Errors) {
  // Out-of-range index.
  EXPECT_THROW(run_op(gather_elements(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                      Tensor::from<int64_t>({1, 1}, {2}), 0)),
               Error);
  // indices larger than data on a non-axis dim would read out of bounds.
  EXPECT_THROW(run_op(gather_elements(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                      Tensor::from<int64_t>({1, 3}, {0, 0, 0}), 0)),
               Error);
  // Rank mismatch.
  EXPECT_THROW(run_op(gather_elements(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                                      Tensor::from<int64_t>({2}, {0, 0}), 0)),
               Error);
}

}  // namespace
}  // namespace strata::test
