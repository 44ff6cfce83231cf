// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (src/ops/loss.cpp): reductions, weights,
// ignore_index, the log_prob output and targets out of range.
#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// log-probabilities of 3 samples over 2 classes, targets 0, 1, 1.
OpCall nll(const char* reduction, bool weights, int64_t ignore = -100) {
  std::map<std::string, ir::Attribute> attrs = {{"reduction", attr_string(reduction)}};
  if (ignore != -100) attrs["ignore_index"] = attr_int(ignore);
  OpCall call = op_call("NegativeLogLikelihoodLoss", 13, attrs);
  call.inputs = {Tensor::from<float>({3, 2}, {-0.1f, -2.0f, -1.0f, -0.5f, -3.0f, -0.2f}),
                 Tensor::from<int64_t>({3}, {0, 1, 1})};
  if (weights) call.inputs.push_back(Tensor::from<float>({2}, {2.0f, 0.5f}));
  return call;
}

TEST(NegativeLogLikelihoodLoss, ReductionsWeightsAndIgnoredTargets) {
  EXPECT_EQ(run_op(nll("none", false))[0].to_double(), (std::vector<double>{0.1f, 0.5f, 0.2f}));
  EXPECT_NEAR(run_op(nll("sum", false))[0].to_double()[0], 0.8, 1e-6);
  EXPECT_NEAR(run_op(nll("mean", false))[0].to_double()[0], 0.8 / 3, 1e-6);
  // Weights: 0.1·2 + 0.5·0.5 + 0.2·0.5 over 2 + 0.5 + 0.5.
  EXPECT_NEAR(run_op(nll("mean", true))[0].to_double()[0], (0.2 + 0.25 + 0.1) / 3.0, 1e-6);
  // Class 1 ignored: only the first sample counts, with its weight.
  EXPECT_NEAR(run_op(nll("mean", true, 1))[0].to_double()[0], 0.1, 1e-6);
  EXPECT_EQ(run_op(nll("none", true, 1))[0].to_double()[1], 0.0);
}

TEST(NegativeLogLikelihoodLoss, BadTargetsAndAttributesFail) {
  OpCall out_of_range = nll("sum", false);
  out_of_range.inputs[1] = Tensor::from<int64_t>({3}, {0, 2, 1});
  EXPECT_THROW(run_op(out_of_range), Error);
  EXPECT_THROW(run_op(nll("average", false)), Error);
  OpCall shape = nll("sum", false);
  shape.inputs[1] = Tensor::from<int64_t>({2}, {0, 1});
  EXPECT_THROW(run_op(shape), Error);
}

TEST(SoftmaxCrossEntropyLoss, IsTheLossOfTheLogSoftmaxAndGivesIt) {
  OpCall call = op_call("SoftmaxCrossEntropyLoss", 13, {{"reduction", attr_string("none")}});
  call.inputs = {Tensor::from<float>({1, 3}, {1, 2, 3}), Tensor::from<int32_t>({1}, {2})};
  call.num_outputs = 2;
  const std::vector<Tensor> out = run_op(call);
  const double log_sum = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(out[0].to_double()[0], log_sum - 3, 1e-6);
  const std::vector<double> log_prob = out[1].to_double();
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(log_prob[size_t(c)], c + 1 - log_sum, 1e-6);
}

}  // namespace
}  // namespace strata::test
