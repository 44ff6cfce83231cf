// compare(): like numpy.testing.assert_allclose, plus error figures and cosine similarity.
#include "runtime/verify.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace strata::runtime {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::vector<double> v) {
  return Tensor::from<double>({int64_t(v.size())}, std::span<const double>(v));
}

TEST(Verify, IdenticalTensorsMatch) {
  const Tensor a = Tensor::from<float>({2, 2}, {1, -2, 3, 4});
  const Comparison c = compare(a, a, {});
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.problem, "");
  EXPECT_EQ(c.mismatches, 0);
  EXPECT_EQ(c.first_mismatch, -1);
  EXPECT_EQ(c.max_abs_error, 0);
  EXPECT_EQ(c.max_rel_error, 0);
  EXPECT_DOUBLE_EQ(c.cosine, 1);
}

TEST(Verify, DtypeMismatch) {
  const Comparison c =
      compare(Tensor::from<double>({2}, {1, 2}), Tensor::from<float>({2}, {1, 2}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.problem.find("dtype float64"), std::string::npos) << c.problem;
  EXPECT_NE(c.problem.find("float32"), std::string::npos) << c.problem;
}

TEST(Verify, ShapeMismatch) {
  const Comparison c = compare(Tensor::from<float>({2, 2}, {1, 2, 3, 4}),
                               Tensor::from<float>({4}, {1, 2, 3, 4}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.problem.find("shape [2,2]"), std::string::npos) << c.problem;
  EXPECT_NE(c.problem.find("[4]"), std::string::npos) << c.problem;
}

TEST(Verify, RankZeroAgainstRankOne) {
  const Comparison c = compare(Tensor::from<float>({}, {1}), Tensor::from<float>({1}, {1}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.problem.find("shape"), std::string::npos) << c.problem;
}

TEST(Verify, NaNMatchesOnlyNaN) {
  EXPECT_TRUE(compare(f64({1, kNaN}), f64({1, kNaN}), {}).ok);
  const Comparison actual_nan = compare(f64({1, kNaN}), f64({1, 2}), {});
  EXPECT_FALSE(actual_nan.ok);
  EXPECT_EQ(actual_nan.first_mismatch, 1);
  EXPECT_EQ(actual_nan.mismatches, 1);
  EXPECT_FALSE(compare(f64({1, 2}), f64({1, kNaN}), {}).ok);
  // NaN is never within tolerance, however large.
  EXPECT_FALSE(compare(f64({kNaN}), f64({0}), {1e9, 1e9}).ok);
}

TEST(Verify, InfinitiesMustBeEqual) {
  EXPECT_TRUE(compare(f64({kInf, -kInf}), f64({kInf, -kInf}), {}).ok);
  EXPECT_FALSE(compare(f64({kInf}), f64({-kInf}), {}).ok);
  EXPECT_FALSE(compare(f64({kInf}), f64({1e300}), {1, 1}).ok);
  EXPECT_FALSE(compare(f64({1e300}), f64({kInf}), {1, 1}).ok);
  // A float32 overflow to inf is caught too.
  EXPECT_FALSE(compare(Tensor::from<float>({1}, {std::numeric_limits<float>::infinity()}),
                       Tensor::from<float>({1}, {3e38f}), {})
                   .ok);
}

TEST(Verify, ToleranceEdgeIsInclusive) {
  // rtol 2^-10 of 1024 is exactly 1: |1025 - 1024| <= 1 passes, a hair more fails.
  const Tolerance rel{std::ldexp(1.0, -10), 0};
  EXPECT_TRUE(compare(f64({1025}), f64({1024}), rel).ok);
  EXPECT_TRUE(compare(f64({1023}), f64({1024}), rel).ok);
  EXPECT_FALSE(compare(f64({std::nextafter(1025.0, 2000.0)}), f64({1024}), rel).ok);
  EXPECT_TRUE(compare(f64({-1025}), f64({-1024}), rel).ok);
  // Relative to the expected value, not the actual one (asymmetric like assert_allclose).
  EXPECT_FALSE(compare(f64({1024}), f64({1023}), {std::ldexp(1.0, -10), 0}).ok);

  const Tolerance abs{0, 0.5};
  EXPECT_TRUE(compare(f64({0.5}), f64({0}), abs).ok);
  EXPECT_FALSE(compare(f64({std::nextafter(0.5, 1.0)}), f64({0}), abs).ok);
  // atol and rtol add up.
  EXPECT_TRUE(compare(f64({1025.5}), f64({1024}), {std::ldexp(1.0, -10), 0.5}).ok);
  EXPECT_FALSE(compare(f64({1025.6}), f64({1024}), {std::ldexp(1.0, -10), 0.5}).ok);
}

TEST(Verify, DefaultToleranceIsOnnxs) {
  const Tolerance tol;
  EXPECT_EQ(tol.rtol, 1e-3);
  EXPECT_EQ(tol.atol, 1e-7);
  EXPECT_TRUE(compare(f64({1.0009}), f64({1}), tol).ok);
  EXPECT_FALSE(compare(f64({1.0011}), f64({1}), tol).ok);
  EXPECT_TRUE(compare(f64({5e-8}), f64({0}), tol).ok);
  EXPECT_FALSE(compare(f64({2e-7}), f64({0}), tol).ok);
}

TEST(Verify, ErrorFiguresAndMessage) {
  const Comparison c = compare(f64({1, 2.5, 3, 10}), f64({1, 2, 3, 8}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.first_mismatch, 1);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 2);
  EXPECT_DOUBLE_EQ(c.max_rel_error, 0.25);
  EXPECT_NE(c.problem.find("2 of 4 values differ"), std::string::npos) << c.problem;
  EXPECT_NE(c.problem.find("flat index 1"), std::string::npos) << c.problem;
  EXPECT_NE(c.problem.find("2.5"), std::string::npos) << c.problem;
}

TEST(Verify, RelativeErrorSkipsZeroExpectedValues) {
  const Comparison c = compare(f64({1e-9, 2}), f64({0, 2}), {});
  EXPECT_TRUE(c.ok);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 1e-9);
  EXPECT_EQ(c.max_rel_error, 0);
}

TEST(Verify, Cosine) {
  EXPECT_NEAR(compare(f64({1, 0}), f64({0, 1}), {}).cosine, 0, 1e-12);
  EXPECT_NEAR(compare(f64({1, 2}), f64({2, 4}), {}).cosine, 1, 1e-12);
  EXPECT_NEAR(compare(f64({1, 2}), f64({-1, -2}), {}).cosine, -1, 1e-12);
  EXPECT_NEAR(compare(f64({3, 4}), f64({4, 3}), {}).cosine, 24.0 / 25.0, 1e-12);
  EXPECT_EQ(compare(f64({0, 0}), f64({0, 0}), {}).cosine, 1);
  EXPECT_EQ(compare(f64({0, 0}), f64({1, 0}), {}).cosine, 0);
  // Non-finite elements are left out of the cosine.
  EXPECT_NEAR(compare(f64({1, kNaN, 2}), f64({1, kNaN, 2}), {}).cosine, 1, 1e-12);
}

TEST(Verify, EmptyTensorsMatch) {
  const Comparison c =
      compare(Tensor::zeros(DType::kF32, {0, 3}), Tensor::zeros(DType::kF32, {0, 3}), {});
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.cosine, 1);
}

TEST(Verify, IntegerAndBoolTensors) {
  EXPECT_TRUE(
      compare(Tensor::from<int64_t>({3}, {1, -5, 7}), Tensor::from<int64_t>({3}, {1, -5, 7}), {})
          .ok);
  const Comparison c =
      compare(Tensor::from<int64_t>({3}, {1, -5, 8}), Tensor::from<int64_t>({3}, {1, -5, 7}), {});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.first_mismatch, 2);
  EXPECT_TRUE(
      compare(Tensor::from<bool>({2}, {true, false}), Tensor::from<bool>({2}, {true, false}), {})
          .ok);
  EXPECT_FALSE(
      compare(Tensor::from<bool>({2}, {true, true}), Tensor::from<bool>({2}, {true, false}), {})
          .ok);
}

TEST(Verify, UlpDistanceCountsRepresentableValues) {
  const float one = 1.0f;
  const float next = std::nextafter(one, 2.0f);
  const float next2 = std::nextafter(next, 2.0f);
  EXPECT_EQ(ulp_distance(one, one, DType::kF32), 0);
  EXPECT_EQ(ulp_distance(one, next, DType::kF32), 1);
  EXPECT_EQ(ulp_distance(next2, one, DType::kF32), 2);
  // Across zero: the smallest positive and negative subnormals are 2 apart (+0 and -0 are one).
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(ulp_distance(tiny, -tiny, DType::kF32), 2);
  EXPECT_EQ(ulp_distance(0.0, -0.0, DType::kF32), 0);
  // float16: 1 and 1 + 2^-10 are neighbours; float64 counts its own units.
  EXPECT_EQ(ulp_distance(1.0, 1.0 + 1.0 / 1024, DType::kF16), 1);
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 2.0), DType::kF64), 1);
  EXPECT_EQ(ulp_distance(-3, 4, DType::kI32), 7);
}

TEST(Verify, CompareReportsTheLargestUlpDistance) {
  const float one = 1.0f;
  const float three_up = std::nextafter(std::nextafter(std::nextafter(one, 2.0f), 2.0f), 2.0f);
  const Tensor a = Tensor::from<float>({2}, {three_up, 5.0f});
  const Tensor e = Tensor::from<float>({2}, {one, 5.0f});
  const Comparison c = compare(a, e, {});
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.max_ulp, 3);
}

TEST(Verify, RelativeToTheTensorScalesByItsRootMeanSquare) {
  // rms(e) = sqrt((100 + 0 + 100) / 3) = 8.165; the near-zero element may be off by
  // rtol * 8.165 = 0.008165 instead of rtol * 0.001.
  const Tensor e = f64({10, 0.001, -10});
  Tolerance per_tensor;
  per_tensor.relative_to_tensor = true;
  EXPECT_FALSE(compare(f64({10, 0.005, -10}), e, {}).ok);
  EXPECT_TRUE(compare(f64({10, 0.005, -10}), e, per_tensor).ok);
  EXPECT_FALSE(compare(f64({10, 0.0095, -10}), e, per_tensor).ok);
  // Large elements still answer to their own magnitude.
  EXPECT_FALSE(compare(f64({10.02, 0.001, -10}), e, per_tensor).ok);
  // NaN and Inf stay out of the scale.
  EXPECT_TRUE(compare(f64({kNaN, 0.005, 10}), f64({kNaN, 0.001, 10}), per_tensor).ok);
}

}  // namespace
}  // namespace strata::runtime
