#include "ops/op_test_util.h"

namespace strata::test {
namespace {

std::vector<float> arange(int n) {
  std::vector<float> v(size_t(n), 0);
  for (int i = 0; i < n; ++i) v[size_t(i)] = float(i);
  return v;
}

// Expected values from numpy's reshape-transpose-reshape formulas in the ONNX spec.
TEST(DepthToSpace, DcrAndCrd) {
  const std::vector<float> x = arange(16);
  OpCall call{.op_type = "DepthToSpace", .attributes = {{"blocksize", attr_int(2)}}};
  call.inputs = {Tensor::from<float>({1, 8, 1, 2}, x)};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2, 2, 4}));
  expect_near(out[0], {0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15});
  call.attributes["mode"] = attr_string("CRD");
  expect_near(run_op(call)[0], {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15});
}

TEST(SpaceToDepth, Blocks) {
  OpCall call{.op_type = "SpaceToDepth", .attributes = {{"blocksize", attr_int(2)}}};
  call.inputs = {Tensor::from<float>({1, 1, 4, 4}, arange(16))};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 4, 2, 2}));
  expect_near(out[0], {0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
}

TEST(DepthToSpace, Errors) {
  const std::vector<OpCall> bad = {
      {.op_type = "DepthToSpace", .attributes = {{"blocksize", attr_int(2)}}},  // C=3
      {.op_type = "DepthToSpace", .attributes = {{"blocksize", attr_int(0)}}},
      {.op_type = "DepthToSpace",
       .attributes = {{"blocksize", attr_int(1)}, {"mode", attr_string("XYZ")}}},
      {.op_type = "SpaceToDepth", .attributes = {{"blocksize", attr_int(2)}}},  // H=3
      {.op_type = "SpaceToDepth"},                                              // no blocksize
  };
  for (OpCall call : bad) {
    call.inputs = {Tensor::zeros(DType::kF32, {1, 3, 3, 2})};
    EXPECT_THROW(run_op(call), Error);
  }
  OpCall rank3{.op_type = "DepthToSpace", .attributes = {{"blocksize", attr_int(1)}}};
  rank3.inputs = {Tensor::zeros(DType::kF32, {1, 3, 3})};
  EXPECT_THROW(run_op(rank3), Error);
}

}  // namespace
}  // namespace strata::test
