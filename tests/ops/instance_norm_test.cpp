#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall instance_norm() {
  OpCall call;
  call.op_type = "InstanceNormalization";
  call.inputs = {Tensor::from<float>({1, 2, 4}, {1, 2, 3, 4, 2, 2, 2, 6}),
                 Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({2}, {0, 1})};
  return call;
}

TEST(InstanceNormalization, NormalisesEachPlane) {
  expect_near(run_op(instance_norm())[0], {-1.3416354f, -0.4472118f, 0.4472118f, 1.3416354f,
                                           -0.1546986f, -0.1546986f, -0.1546986f, 4.4640958f});
}

TEST(InstanceNormalization, ConstantPlaneGivesBias) {
  OpCall call = instance_norm();
  call.attributes["epsilon"] = attr_float(0.01f);
  call.inputs[0] = Tensor::from<float>({1, 2, 1, 2}, {5, 5, -3, -3});
  expect_near(run_op(call)[0], {0, 0, 1, 1});
}

TEST(InstanceNormalization, DoubleAndEmpty) {
  OpCall call = instance_norm();
  call.inputs = {Tensor::from<double>({1, 1, 2}, {1, 3}), Tensor::from<double>({1}, {2}),
                 Tensor::from<double>({1}, {0})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_NEAR(out[0].data<double>()[0], -2 / std::sqrt(1 + 1e-5), 1e-9);
  call.inputs[0] = Tensor::zeros(DType::kF64, {0, 1, 2});
  EXPECT_EQ(run_op(call)[0].numel(), 0);
}

TEST(InstanceNormalization, Errors) {
  OpCall call = instance_norm();
  call.inputs[1] = Tensor::from<float>({3}, {1, 1, 1});
  EXPECT_THROW(run_op(call), Error);
  call = instance_norm();
  call.inputs[2] = Tensor::from<double>({2}, {0, 0});
  EXPECT_THROW(run_op(call), Error);
  call = instance_norm();
  call.inputs[0] = Tensor::zeros(DType::kI64, {1, 2, 4});
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
