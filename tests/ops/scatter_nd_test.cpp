#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall scatter_nd(Tensor data, Tensor indices, Tensor updates, std::string reduction = "") {
  OpCall call;
  call.op_type = "ScatterND";
  call.opset = 18;
  if (!reduction.empty()) call.attributes["reduction"] = attr_string(reduction);
  call.inputs = {std::move(data), std::move(indices), std::move(updates)};
  return call;
}

TEST(ScatterND, ElementUpdates) {
  std::vector<Tensor> out = run_op(scatter_nd(Tensor::from<float>({8}, {1, 2, 3, 4, 5, 6, 7, 8}),
                                              Tensor::from<int64_t>({4, 1}, {4, 3, 1, 7}),
                                              Tensor::from<float>({4}, {9, 10, 11, 12})));
  expect_near(out[0], {1, 11, 3, 10, 9, 6, 7, 12});
}

TEST(ScatterND, SliceUpdatesWithNegativeIndex) {
  std::vector<Tensor> out = run_op(scatter_nd(Tensor::from<int64_t>({2, 2}, {1, 2, 3, 4}),
                                              Tensor::from<int64_t>({1, 1}, {-1}),
                                              Tensor::from<int64_t>({1, 2}, {9, 8})));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 9, 8}));
}

TEST(ScatterND, Reductions) {
  const Tensor data = Tensor::from<float>({3}, {1, 2, 3});
  const Tensor indices = Tensor::from<int64_t>({2, 1}, {0, 0});
  const Tensor updates = Tensor::from<float>({2}, {5, -6});
  expect_near(run_op(scatter_nd(data, indices, updates, "add"))[0], {0, 2, 3});
  expect_near(run_op(scatter_nd(data, indices, updates, "mul"))[0], {-30, 2, 3});
  expect_near(run_op(scatter_nd(data, indices, updates, "max"))[0], {5, 2, 3});
  expect_near(run_op(scatter_nd(data, indices, updates, "min"))[0], {-6, 2, 3});
  expect_near(run_op(scatter_nd(data, indices, updates))[0], {-6, 2, 3});
}

TEST(ScatterND, Errors) {
  const Tensor data = Tensor::from<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_THROW(run_op(scatter_nd(data, Tensor::from<int64_t>({1, 2}, {0, 2}),
                                 Tensor::from<float>({1}, {0}))),
               Error);  // index out of range on axis 1
  EXPECT_THROW(run_op(scatter_nd(data, Tensor::from<int64_t>({1, 1}, {0}),
                                 Tensor::from<float>({1, 3}, {0, 0, 0}))),
               Error);  // updates shape
  EXPECT_THROW(run_op(scatter_nd(data, Tensor::from<int64_t>({1, 3}, {0, 0, 0}),
                                 Tensor::from<float>({1}, {0}))),
               Error);  // index rows too long
}

}  // namespace
}  // namespace strata::test
