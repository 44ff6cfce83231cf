// ArrayFeatureExtractor and Binarizer (src/ops/ml_simple.cpp, domain ai.onnx.ml).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

TEST(ArrayFeatureExtractor, SelectsColumnsOfTheLastAxis) {
  OpCall call = op_call("ArrayFeatureExtractor");
  call.domain = "ai.onnx.ml";
  call.inputs = {Tensor::from<float>({2, 3}, {0, 1, 2, 3, 4, 5}),
                 Tensor::from<int64_t>({2}, {2, 0})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {2, 0, 5, 3});
}

TEST(ArrayFeatureExtractor, OneDimensionalInputGivesOneRowAndBadIndexFails) {
  OpCall call = op_call("ArrayFeatureExtractor");
  call.domain = "ai.onnx.ml";
  call.inputs = {Tensor::from<int32_t>({3}, {7, 8, 9}), Tensor::from<int64_t>({1}, {1})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{8}));
  call.inputs[1] = Tensor::from<int64_t>({1}, {3});
  EXPECT_THROW(run_op(call), Error);
}

TEST(Binarizer, OneAboveTheThreshold) {
  OpCall call = op_call("Binarizer", 17, {{"threshold", attr_float(1)}});
  call.domain = "ai.onnx.ml";
  call.inputs = {Tensor::from<float>({4}, {0.5f, 1, 1.5f, -2})};
  expect_near(run_op(call)[0], {0, 0, 1, 0});
}

}  // namespace
}  // namespace strata::test
