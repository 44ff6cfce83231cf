#include <cmath>

#include "ops/infer_util.h"
#include "ops/op_cost_util.h"

namespace strata::test {
namespace {

Tensor rows() {
  return Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
}

// softmax([1, 2, 3]) (every row of rows() is that shifted)
const std::vector<float> kRow = {0.09003057f, 0.24472847f, 0.66524096f};

TEST(Softmax, DefaultAxisIsLast) {
  OpCall call{.op_type = "Softmax", .opset = 13};
  call.inputs = {rows()};
  std::vector<float> expected = kRow;
  expected.insert(expected.end(), kRow.begin(), kRow.end());
  expect_near(run_op(call)[0], expected);
}

TEST(Softmax, LogSoftmaxOnAxis0) {
  OpCall call{.op_type = "LogSoftmax", .opset = 13, .attributes = {{"axis", attr_int(0)}}};
  call.inputs = {rows()};
  const float a = std::log(1 / (1 + std::exp(3.0f))), b = std::log(1 / (1 + std::exp(-3.0f)));
  expect_near(run_op(call)[0], {a, a, a, b, b, b});
}

TEST(Softmax, BeforeOpset13CoercesTo2d) {
  // Axis 0 flattens the whole tensor into one row of six.
  OpCall call{.op_type = "Softmax", .opset = 11, .attributes = {{"axis", attr_int(0)}}};
  call.inputs = {rows()};
  expect_near(run_op(call)[0],
              {0.00426978f, 0.01160646f, 0.03154963f, 0.08576079f, 0.23312201f, 0.63369132f});
  // The default axis 1 of a 2-D input is a plain row-wise softmax.
  OpCall log{.op_type = "LogSoftmax", .opset = 11};
  log.inputs = {Tensor::from<float>({1, 6}, {1, 2, 3, 4, 5, 6})};
  expect_near(run_op(log)[0],
              {-5.45619332f, -4.45619332f, -3.45619332f, -2.45619332f, -1.45619332f, -0.45619332f});
}

TEST(Softmax, LargeNumbersAreStable) {
  OpCall call{.op_type = "Softmax", .opset = 13};
  call.inputs = {Tensor::from<float>({3}, {10001, 10002, 10003})};
  expect_near(run_op(call)[0], kRow);
}

TEST(Softmax, Float16) {
  OpCall call{.op_type = "Softmax", .opset = 13};
  call.inputs = {Tensor::from<f16>({3}, {f16(1.0f), f16(2.0f), f16(3.0f)})};
  std::vector<Tensor> out = run_op(call);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(float(out[0].data<f16>()[i]), kRow[i], 1e-3);
}

TEST(Softmax, Cost) {
  ops::Cost c = cost_of({.op_type = "Softmax"}, {meta(DType::kF32, Shape{2, 3})});
  EXPECT_EQ(c.flops, 5 * 6);
}

TEST(Softmax, Errors) {
  OpCall bad_axis{.op_type = "Softmax", .opset = 13, .attributes = {{"axis", attr_int(2)}}};
  bad_axis.inputs = {rows()};
  EXPECT_THROW(run_op(bad_axis), Error);
  OpCall old_bad_axis{.op_type = "LogSoftmax", .opset = 11, .attributes = {{"axis", attr_int(-3)}}};
  old_bad_axis.inputs = {rows()};
  EXPECT_THROW(run_op(old_bad_axis), Error);
  OpCall integer{.op_type = "Softmax", .opset = 13};
  integer.inputs = {Tensor::from<int32_t>({2}, {1, 2})};
  EXPECT_THROW(run_op(integer), Error);
}

// Hardmax: 1 at the first maximum along the axis (ties go to the first), 0 elsewhere.
TEST(Hardmax, OneAtTheFirstMaximum) {
  OpCall call = op_call("Hardmax", 13, {{"axis", attr_int(0)}});
  call.inputs = {Tensor::from<float>({3, 2}, {1, 5, 3, 5, 3, -1})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{0, 1, 1, 0, 0, 0}));
  OpCall old = op_call("Hardmax", 11);  // before 13: rows of the flattened tail from axis 1
  old.inputs = {Tensor::from<float>({1, 2, 2}, {0, 2, 7, 2})};
  EXPECT_EQ(run_op(old)[0].to_double(), (std::vector<double>{0, 0, 1, 0}));
}

}  // namespace
}  // namespace strata::test
