#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall scatter_elements(Tensor data, Tensor indices, Tensor updates, int64_t axis,
                        std::string reduction = "", int64_t opset = 18) {
  OpCall call;
  call.op_type = "ScatterElements";
  call.opset = opset;
  call.attributes["axis"] = attr_int(axis);
  if (!reduction.empty()) call.attributes["reduction"] = attr_string(reduction);
  call.inputs = {std::move(data), std::move(indices), std::move(updates)};
  return call;
}

TEST(ScatterElements, Axis0) {
  std::vector<Tensor> out = run_op(scatter_elements(
      Tensor::zeros(DType::kF32, {3, 3}), Tensor::from<int64_t>({2, 3}, {1, 0, 2, 0, 2, 1}),
      Tensor::from<float>({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f}), 0, "", 11));
  expect_near(out[0], {2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f});
}

TEST(Scatter, IsTheDeprecatedNameOfScatterElements) {
  OpCall call = op_call("Scatter", 9, {{"axis", attr_int(1)}});
  call.inputs = {Tensor::zeros(DType::kF32, {2, 3}), Tensor::from<int64_t>({2, 1}, {2, 0}),
                 Tensor::from<float>({2, 1}, {5, 7})};
  expect_near(run_op(call)[0], {0, 0, 5, 7, 0, 0});
}

TEST(ScatterElements, Axis1WithNegativeIndex) {
  std::vector<Tensor> out = run_op(scatter_elements(Tensor::from<float>({1, 5}, {1, 2, 3, 4, 5}),
                                                    Tensor::from<int32_t>({1, 2}, {1, -2}),
                                                    Tensor::from<float>({1, 2}, {1.1f, 2.1f}), 1));
  expect_near(out[0], {1, 1.1f, 3, 2.1f, 5});
}

TEST(ScatterElements, Reductions) {
  const Tensor data = Tensor::from<int32_t>({1, 5}, {1, 2, 3, 4, 5});
  const Tensor indices = Tensor::from<int64_t>({1, 2}, {1, 1});
  const Tensor updates = Tensor::from<int32_t>({1, 2}, {3, -4});
  EXPECT_EQ(values_of<int32_t>(run_op(scatter_elements(data, indices, updates, 1, "add"))[0]),
            (std::vector<int32_t>{1, 1, 3, 4, 5}));
  EXPECT_EQ(values_of<int32_t>(run_op(scatter_elements(data, indices, updates, 1, "mul"))[0]),
            (std::vector<int32_t>{1, -24, 3, 4, 5}));
  EXPECT_EQ(values_of<int32_t>(run_op(scatter_elements(data, indices, updates, 1, "max"))[0]),
            (std::vector<int32_t>{1, 3, 3, 4, 5}));
  EXPECT_EQ(values_of<int32_t>(run_op(scatter_elements(data, indices, updates, 1, "min"))[0]),
            (std::vector<int32_t>{1, -4, 3, 4, 5}));
  // Without a reduction the later duplicate wins.
  EXPECT_EQ(values_of<int32_t>(run_op(scatter_elements(data, indices, updates, 1))[0]),
            (std::vector<int32_t>{1, -4, 3, 4, 5}));
}

TEST(ScatterElements, Float16AddComputesInFloat) {
  std::vector<Tensor> out = run_op(scatter_elements(Tensor::from<f16>({2}, {f16(1.0f), f16(2.0f)}),
                                                    Tensor::from<int64_t>({1}, {0}),
                                                    Tensor::from<f16>({1}, {f16(0.5f)}), 0, "add"));
  EXPECT_EQ(float(out[0].data<f16>()[0]), 1.5f);
}

TEST(ScatterElements, Errors) {
  const Tensor data = Tensor::from<float>({1, 5}, {1, 2, 3, 4, 5});
  const Tensor updates = Tensor::from<float>({1, 2}, {1, 2});
  EXPECT_THROW(run_op(scatter_elements(data, Tensor::from<int64_t>({1, 2}, {1, 5}), updates, 1)),
               Error);  // index out of range
  EXPECT_THROW(run_op(scatter_elements(data, Tensor::from<int64_t>({1, 2}, {1, -6}), updates, 1)),
               Error);
  EXPECT_THROW(run_op(scatter_elements(data, Tensor::from<int64_t>({1, 3}, {1, 2, 3}), updates, 1)),
               Error);  // updates shape differs from indices
  EXPECT_THROW(
      run_op(scatter_elements(data, Tensor::from<int64_t>({1, 2}, {1, 2}), updates, 1, "average")),
      Error);
  EXPECT_THROW(run_op(scatter_elements(Tensor::from<bool>({2}, {true, false}),
                                       Tensor::from<int64_t>({1}, {0}),
                                       Tensor::from<bool>({1}, {true}), 0, "add")),
               Error);  // reductions need numbers
}

}  // namespace
}  // namespace strata::test
