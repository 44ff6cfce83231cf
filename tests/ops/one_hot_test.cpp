#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall one_hot(Tensor indices, Tensor depth, Tensor values, int64_t axis = -1) {
  OpCall call;
  call.op_type = "OneHot";
  call.opset = 11;
  call.attributes["axis"] = attr_int(axis);
  call.inputs = {std::move(indices), std::move(depth), std::move(values)};
  return call;
}

TEST(OneHot, LastAxisWithNegativeAndOutOfRangeIndices) {
  // -1 means depth-1; 5 is outside [-3, 2] and gives an all-off row.
  std::vector<Tensor> out =
      run_op(one_hot(Tensor::from<int64_t>({4}, {0, 2, -1, 5}), Tensor::from<float>({}, {3}),
                     Tensor::from<float>({2}, {0, 1})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{4, 3}));
  expect_near(out[0], {1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0});
}

TEST(OneHot, Axis0WithFloatIndicesAndIntValues) {
  std::vector<Tensor> out =
      run_op(one_hot(Tensor::from<float>({2}, {1.0f, 0.0f}), Tensor::from<int64_t>({1}, {2}),
                     Tensor::from<int32_t>({2}, {-1, 5}), 0));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{-1, 5, 5, -1}));
}

TEST(OneHot, MiddleAxis) {
  std::vector<Tensor> out =
      run_op(one_hot(Tensor::from<int32_t>({2, 2}, {0, 1, 1, 0}), Tensor::from<int32_t>({}, {2}),
                     Tensor::from<float>({2}, {0, 1}), 1));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2, 2}));
  // out[i][d][j] = (indices[i][j] == d)
  expect_near(out[0], {1, 0, 0, 1, 0, 1, 1, 0});
}

TEST(OneHot, Errors) {
  const Tensor indices = Tensor::from<int64_t>({2}, {0, 1});
  const Tensor depth = Tensor::from<int64_t>({}, {2});
  EXPECT_THROW(run_op(one_hot(indices, depth, Tensor::from<float>({3}, {0, 1, 2}))), Error);
  EXPECT_THROW(run_op(one_hot(indices, depth, Tensor::from<float>({2}, {0, 1}), 2)), Error);
  EXPECT_THROW(
      run_op(one_hot(indices, Tensor::from<int64_t>({}, {-1}), Tensor::from<float>({2}, {0, 1}))),
      Error);
  EXPECT_THROW(run_op(one_hot(indices, Tensor::from<int64_t>({2}, {2, 2}),
                              Tensor::from<float>({2}, {0, 1}))),
               Error);
}

}  // namespace
}  // namespace strata::test
