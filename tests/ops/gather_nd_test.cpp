#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall gather_nd(Tensor data, Tensor indices, int64_t batch_dims = 0) {
  OpCall call;
  call.op_type = "GatherND";
  if (batch_dims) call.attributes["batch_dims"] = attr_int(batch_dims);
  call.inputs = {std::move(data), std::move(indices)};
  return call;
}

TEST(GatherND, FullIndexRowsPickElements) {
  std::vector<Tensor> out = run_op(gather_nd(Tensor::from<int32_t>({2, 2}, {0, 1, 2, 3}),
                                             Tensor::from<int64_t>({2, 2}, {0, 0, 1, 1})));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{0, 3}));
}

TEST(GatherND, ShortIndexRowsPickSlices) {
  std::vector<Tensor> out = run_op(
      gather_nd(Tensor::from<float>({2, 2}, {0, 1, 2, 3}), Tensor::from<int64_t>({2, 1}, {1, -2})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {2, 3, 0, 1});
}

TEST(GatherND, BatchDims) {
  std::vector<Tensor> out =
      run_op(gather_nd(Tensor::from<float>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
                       Tensor::from<int64_t>({2, 1}, {1, 0}), 1));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {2, 3, 4, 5});
}

TEST(GatherND, Errors) {
  const Tensor data = Tensor::from<float>({2, 2}, {0, 1, 2, 3});
  EXPECT_THROW(run_op(gather_nd(data, Tensor::from<int64_t>({1, 2}, {0, 2}))), Error);     // range
  EXPECT_THROW(run_op(gather_nd(data, Tensor::from<int64_t>({1, 3}, {0, 0, 0}))), Error);  // k
  EXPECT_THROW(run_op(gather_nd(data, Tensor::from<int64_t>({2, 1}, {0, 0}), 2)), Error);  // b
  EXPECT_THROW(run_op(gather_nd(Tensor::from<float>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}),
                                Tensor::from<int64_t>({3, 1}, {0, 0, 0}), 1)),
               Error);  // batch dims differ
}

}  // namespace
}  // namespace strata::test
