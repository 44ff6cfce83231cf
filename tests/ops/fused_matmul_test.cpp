// FusedMatMul's reference kernel: MatMul, scale, addends, activation.
#include "ops/fused_matmul.h"

#include <gtest/gtest.h>

#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

TEST(FusedMatMul, ScaleBiasResidualActivation) {
  // [1 2; 3 4] x [1 0; 0 1] = [1 2; 3 4]; * 0.5, + [10 -10], + [[0 0],[0 -9]], Relu.
  OpCall call = op_call("FusedMatMul", 17,
                        {{"alpha", attr_float(0.5f)}, {"activation", attr_string("Relu")}});
  call.inputs = {Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                 Tensor::from<float>({2, 2}, {1, 0, 0, 1}), Tensor::from<float>({2}, {10, -10}),
                 Tensor::from<float>({2, 2}, {0, 0, 0, -9})};
  expect_near(run_op(call)[0], {10.5f, 0, 11.5f, 0});
  call.inputs[2] = Tensor();  // no bias: the residual alone
  call.attributes["activation"] = attr_string("");
  expect_near(run_op(call)[0], {0.5f, 1, 1.5f, -7});
}

TEST(FusedMatMul, AddendsMustBroadcastWithoutGrowing) {
  OpCall call = op_call("FusedMatMul", 17, {{"activation", attr_string("")}});
  call.inputs = {Tensor::zeros(DType::kF32, {1, 2}), Tensor::zeros(DType::kF32, {2, 2}),
                 Tensor::zeros(DType::kF32, {3, 2})};
  expect_error([&] { run_op(call); }, {"addend C", "does not broadcast"});
  call.inputs = {Tensor::zeros(DType::kI32, {1, 2}), Tensor::zeros(DType::kI32, {2, 2})};
  expect_error([&] { run_op(call); }, {"dtype"});
}

}  // namespace
}  // namespace strata::test
