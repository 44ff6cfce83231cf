// Random generators (src/ops/random.cpp), tested statistically: over many draws the mean,
// variance and a chi-square statistic stay within bounds that a correct generator leaves with
// probability above 0.999 (each bound is named with the figure it comes from). Seeds make the
// draws reproducible, so these tests cannot flake: a given seed either passes or not.
#include <algorithm>
#include <cmath>

#include "ops/op_cost_util.h"
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

constexpr int64_t kDraws = 100000;

struct Moments {
  double mean = 0, variance = 0;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  for (double x : v) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= double(v.size() - 1);
  return m;
}

// Pearson's statistic of `counts` against `expected` counts.
double chi_square(const std::vector<int64_t>& counts, const std::vector<double>& expected) {
  double chi = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    chi += (double(counts[i]) - expected[i]) * (double(counts[i]) - expected[i]) / expected[i];
  return chi;
}

std::vector<double> uniform(float low, float high, float seed) {
  OpCall call = op_call("RandomUniform", 22,
                        {{"low", attr_float(low)},
                         {"high", attr_float(high)},
                         {"seed", attr_float(seed)},
                         {"shape", attr_ints({kDraws / 100, 100})}});
  const Tensor y = run_op(call)[0];
  EXPECT_EQ(y.dtype(), DType::kF32);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{kDraws / 100, 100}));
  return y.to_double();
}

TEST(RandomUniform, MomentsAndChiSquare) {
  const std::vector<double> v = uniform(-2, 3, 7);
  for (double x : v) ASSERT_TRUE(x >= -2 && x < 3) << x;
  const Moments m = moments(v);
  // Mean 0.5, variance 25/12; standard error of the mean sqrt(25/12 / n) = 0.0046: 5 of them.
  EXPECT_NEAR(m.mean, 0.5, 0.023);
  EXPECT_NEAR(m.variance, 25.0 / 12, 0.05);  // its standard error is about 0.008
  std::vector<int64_t> bins(20);
  for (double x : v) ++bins[size_t(std::min(19.0, (x + 2) / 5 * 20))];
  // 19 degrees of freedom: 43.8 is the 0.999 quantile.
  EXPECT_LT(chi_square(bins, std::vector<double>(20, double(kDraws) / 20)), 43.8);
}

TEST(RandomUniform, SeedMakesDrawsReproducible) {
  EXPECT_EQ(uniform(0, 1, 3), uniform(0, 1, 3));
  EXPECT_NE(uniform(0, 1, 3), uniform(0, 1, 4));
  OpCall unseeded = op_call("RandomUniform", 22, {{"shape", attr_ints({64})}});
  EXPECT_NE(run_op(unseeded)[0].to_double(), run_op(unseeded)[0].to_double());
}

TEST(RandomNormal, MomentsAndOneSigmaFraction) {
  OpCall call = op_call("RandomNormal", 22,
                        {{"mean", attr_float(1)},
                         {"scale", attr_float(2)},
                         {"seed", attr_float(11)},
                         {"dtype", attr_int(11)},
                         {"shape", attr_ints({kDraws})}});
  const Tensor y = run_op(call)[0];
  ASSERT_EQ(y.dtype(), DType::kF64);
  const std::vector<double> v = y.to_double();
  const Moments m = moments(v);
  EXPECT_NEAR(m.mean, 1, 0.032);     // 5 standard errors: 5 * 2 / sqrt(n)
  EXPECT_NEAR(m.variance, 4, 0.09);  // standard error 4 * sqrt(2 / n) = 0.018: 5 of them
  // Counts in the bins bounded by mean + k sigma, k = -2..2, against the normal distribution.
  const std::vector<double> p = {0.02275, 0.13591, 0.34134, 0.34134, 0.13591, 0.02275};
  std::vector<int64_t> bins(6);
  for (double x : v) {
    const double z = (x - 1) / 2;
    ++bins[size_t(z < -2 ? 0 : z < -1 ? 1 : z < 0 ? 2 : z < 1 ? 3 : z < 2 ? 4 : 5)];
  }
  std::vector<double> expected;
  for (double q : p) expected.push_back(q * double(kDraws));
  EXPECT_LT(chi_square(bins, expected), 20.5);  // 5 degrees of freedom: 0.999 quantile
}

TEST(RandomLike, ShapeAndTypeOfTheInput) {
  OpCall normal = op_call("RandomNormalLike", 22, {{"seed", attr_float(1)}});
  normal.inputs = {Tensor::zeros(DType::kF16, {3, 4})};
  const Tensor y = run_op(normal)[0];
  EXPECT_EQ(y.dtype(), DType::kF16);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 4}));
  OpCall uniform_like = op_call("RandomUniformLike", 22, {{"dtype", attr_int(1)}});
  uniform_like.inputs = {Tensor::zeros(DType::kI64, {5})};
  EXPECT_EQ(run_op(uniform_like)[0].dtype(), DType::kF32);
  uniform_like.attributes.clear();  // an int64 input needs a float dtype attribute
  EXPECT_THROW(run_op(uniform_like), Error);
}

TEST(Bernoulli, FrequencyMatchesTheProbability) {
  OpCall call = op_call("Bernoulli", 22, {{"seed", attr_float(5)}});
  std::vector<float> p(kDraws, 0.3f);
  p[0] = 0;
  p[1] = 1;
  call.inputs = {Tensor::from<float>({kDraws}, std::span<const float>(p))};
  const std::vector<double> v = run_op(call)[0].to_double();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 1);
  for (double x : v) ASSERT_TRUE(x == 0 || x == 1);
  // Standard error sqrt(0.3 * 0.7 / n) = 0.00145: 5 of them.
  EXPECT_NEAR(moments(v).mean, 0.3, 0.0073);
  call.attributes["dtype"] = attr_int(9);
  EXPECT_EQ(run_op(call)[0].dtype(), DType::kBool);
  call.inputs = {Tensor::from<int32_t>({1}, {1})};
  EXPECT_THROW(run_op(call), Error);
}

TEST(Multinomial, ClassFrequenciesFollowTheSoftmax) {
  const std::vector<double> probs = {0.1, 0.2, 0.3, 0.4};
  std::vector<float> logits;
  for (double q : probs) logits.push_back(float(std::log(q) + 3));  // unnormalised
  OpCall call =
      op_call("Multinomial", 7, {{"sample_size", attr_int(40000)}, {"seed", attr_float(2)}});
  call.inputs = {Tensor::from<float>({1, 4}, std::span<const float>(logits))};
  const Tensor y = run_op(call)[0];
  ASSERT_EQ(y.dtype(), DType::kI32);
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{1, 40000}));
  std::vector<int64_t> counts(4);
  for (int64_t c : y.to_int64()) ++counts[size_t(c)];
  std::vector<double> expected;
  for (double q : probs) expected.push_back(q * 40000);
  EXPECT_LT(chi_square(counts, expected), 16.27);  // 3 degrees of freedom: 0.999 quantile
  call.attributes["dtype"] = attr_int(7);
  EXPECT_EQ(run_op(call)[0].dtype(), DType::kI64);
}

TEST(Random, BadAttributesAndInputsFail) {
  EXPECT_THROW(run_op(op_call("RandomNormal", 22)), Error);  // no shape
  EXPECT_THROW(run_op(op_call("RandomUniform", 22, {{"shape", attr_ints({-1})}})), Error);
  EXPECT_THROW(
      run_op(op_call("RandomUniform", 22,
                     {{"shape", attr_ints({2})}, {"low", attr_float(2)}, {"high", attr_float(1)}})),
      Error);
  EXPECT_THROW(
      run_op(op_call("RandomNormal", 22, {{"shape", attr_ints({2})}, {"dtype", attr_int(6)}})),
      Error);  // int32 is not a float type
  OpCall multinomial = op_call("Multinomial", 7, {{"dtype", attr_int(1)}});
  multinomial.inputs = {Tensor::from<float>({1, 2}, {0, 0})};
  EXPECT_THROW(run_op(multinomial), Error);  // float output
  multinomial.attributes.clear();
  multinomial.inputs = {Tensor::from<float>({2}, {0, 0})};
  EXPECT_THROW(run_op(multinomial), Error);  // not [batch, classes]
}

TEST(Random, CostPerValue) {
  ops::Meta x;
  x.dtype = DType::kF32;
  x.shape = Shape{2, 8};
  EXPECT_EQ(cost_of(op_call("RandomUniformLike", 22), {x}).flops, 2 * 16);
  EXPECT_EQ(cost_of(op_call("RandomNormalLike", 22), {x}).flops, 6 * 16);
  EXPECT_EQ(cost_of(op_call("Bernoulli", 22), {x}).flops, 16);
  // Multinomial: exp and add per logit, ceil(log2(8 + 1)) = 4 comparisons per sample.
  EXPECT_EQ(cost_of(op_call("Multinomial", 7, {{"sample_size", attr_int(3)}}), {x}).flops,
            2 * 16 + 4 * 6);
}

}  // namespace
}  // namespace strata::test
