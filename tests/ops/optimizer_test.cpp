// Adagrad, Momentum and Adam (src/ops/optimizer.cpp, domain ai.onnx.preview.training): one step
// on the values of ONNX's examples, checked by hand.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall step(std::string op, std::map<std::string, ir::Attribute> attributes,
            std::vector<Tensor> tensors, size_t outputs) {
  OpCall call = op_call(std::move(op), 17, std::move(attributes));
  call.domain = "ai.onnx.preview.training";
  call.inputs = {Tensor::from<float>({}, {0.1f}), Tensor::from<int64_t>({}, {0})};
  for (Tensor& t : tensors) call.inputs.push_back(std::move(t));
  call.num_outputs = outputs;
  return call;
}

TEST(Adagrad, OneStep) {
  std::vector<Tensor> out =
      run_op(step("Adagrad",
                  {{"decay_factor", attr_float(0.1f)},
                   {"epsilon", attr_float(1e-5f)},
                   {"norm_coefficient", attr_float(0.001f)}},
                  {Tensor::from<float>({1}, {1}), Tensor::from<float>({1}, {-1}),
                   Tensor::from<float>({1}, {2})},
                  2));
  expect_near(out[0], {1.0576958f});
  expect_near(out[1], {2.998001f});
}

TEST(Momentum, StandardStepAndMissingAttributes) {
  const std::map<std::string, ir::Attribute> attributes = {
      {"alpha", attr_float(0.95f)},
      {"beta", attr_float(0.1f)},
      {"mode", attr_string("standard")},
      {"norm_coefficient", attr_float(0.001f)}};
  std::vector<Tensor> out = run_op(
      step("Momentum", attributes,
           {Tensor::from<float>({2}, {1.2f, 2.8f}), Tensor::from<float>({2}, {-0.94f, -2.5f}),
            Tensor::from<float>({2}, {1.7f, 3.6f})},
           2));
  expect_near(out[0], {1.13238f, 2.70772f});
  expect_near(out[1], {0.6762f, 0.9228f});
  EXPECT_THROW(run_op(step("Momentum", {},
                           {Tensor::from<float>({1}, {1}), Tensor::from<float>({1}, {1}),
                            Tensor::from<float>({1}, {1})},
                           2)),
               Error);
}

TEST(Adam, OneStepAndMismatchedState) {
  const std::map<std::string, ir::Attribute> attributes = {
      {"alpha", attr_float(0.95f)},
      {"beta", attr_float(0.1f)},
      {"epsilon", attr_float(1e-7f)},
      {"norm_coefficient", attr_float(0.001f)}};
  std::vector<Tensor> out =
      run_op(step("Adam", attributes,
                  {Tensor::from<float>({1}, {1.2f}), Tensor::from<float>({1}, {-0.94f}),
                   Tensor::from<float>({1}, {1.7f}), Tensor::from<float>({1}, {0.1f})},
                  3));
  expect_near(out[0], {1.025037f}, 1e-5f);
  expect_near(out[1], {1.56806f});
  expect_near(out[2], {0.8032109f});
  EXPECT_THROW(run_op(step("Adam", attributes,
                           {Tensor::from<float>({1}, {1}), Tensor::from<float>({2}, {1, 2}),
                            Tensor::from<float>({1}, {1}), Tensor::from<float>({1}, {1})},
                           3)),
               Error);
}

}  // namespace
}  // namespace strata::test
