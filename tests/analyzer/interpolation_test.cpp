#include "analyzer/interpolation.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <optional>

namespace strata::analyzer {
namespace {

using Figure = std::function<double(const std::vector<int64_t>&)>;

// Fits f from its values at the lattice of `in` and checks it at the check point.
std::optional<Polynomial> fit(const Interpolation& in, const Figure& f) {
  std::vector<double> values;
  for (const std::vector<int64_t>& p : in.lattice()) values.push_back(f(p));
  return in.fit(values, f(in.check_point()));
}

TEST(AnalyzerInterpolation, LatticesAreNestedByDegree) {
  EXPECT_EQ(Interpolation::get(1, 3).lattice().size(), 4u);
  EXPECT_EQ(Interpolation::get(2, 3).lattice().size(), 10u);
  EXPECT_EQ(Interpolation::get(3, 3).lattice().size(), 20u);
  EXPECT_EQ(Interpolation::get(4, 3).lattice().size(), 35u);
  EXPECT_EQ(Interpolation::get(2, 1).lattice().size(), 3u);
  for (size_t k = 1; k <= kMaxSymbols; ++k)
    for (int d = 1; d < kMaxDegree; ++d) {
      const auto& low = Interpolation::get(k, d).lattice();
      const auto& high = Interpolation::get(k, d + 1).lattice();
      ASSERT_LT(low.size(), high.size());
      for (size_t p = 0; p < low.size(); ++p) EXPECT_EQ(low[p], high[p]);  // a prefix
      for (const auto& point : high)
        for (int64_t v : point) EXPECT_GT(v, 1);  // 1 broadcasts differently from other sizes
      for (const auto& point : high) EXPECT_NE(point, Interpolation::get(k, d).check_point());
    }
}

TEST(AnalyzerInterpolation, RecoversALinearFigureExactly) {
  const auto p =
      fit(Interpolation::get(1, 1), [](const auto& x) { return 4089184256.0 * x[0] + 1000; });
  ASSERT_TRUE(p);
  EXPECT_EQ(p->str({"N"}), "4.09e9·N + 1000");
  ASSERT_EQ(p->terms().size(), 2u);
  EXPECT_EQ(p->terms()[0].coefficient, 4089184256.0);  // exact, not rounded
}

TEST(AnalyzerInterpolation, RecoversCubicsInSeveralSymbols) {
  // Attention-like: N·S²·d for the scores plus N·S·d² for the projections.
  const auto p = fit(Interpolation::get(2, 3), [](const auto& x) {
    const double n = double(x[0]), s = double(x[1]);
    return 64 * n * s * s + 4096 * n * s;
  });
  ASSERT_TRUE(p);
  EXPECT_EQ(p->str({"N", "S"}, format_exact), "64·N·S² + 4096·N·S");

  const auto q = fit(Interpolation::get(3, 3), [](const auto& x) {
    return double(x[0] * x[1] * x[2]) - 7.0 * double(x[2] * x[2]) + 3;
  });
  ASSERT_TRUE(q);
  EXPECT_EQ(q->str({"a", "b", "c"}, format_exact), "a·b·c - 7·c² + 3");
}

TEST(AnalyzerInterpolation, FractionalCoefficients) {
  const auto p =
      fit(Interpolation::get(1, 2), [](const auto& x) { return double(x[0] * (x[0] + 1) / 2); });
  ASSERT_TRUE(p);
  const double at[] = {1000};
  EXPECT_EQ(p->evaluate(at), 500500);
}

TEST(AnalyzerInterpolation, RejectsWhatIsNotAPolynomialOfDegreeThreeOrLess) {
  const Interpolation& in = Interpolation::get(1, 3);
  // A stride-2 convolution's output size on a symbolic height.
  EXPECT_FALSE(fit(in, [](const auto& x) { return double((x[0] - 1) / 2 + 1); }));
  EXPECT_FALSE(fit(in, [](const auto& x) { return double(x[0] * x[0] * x[0] * x[0]); }));
  // Degree 2 is not degree 1.
  EXPECT_FALSE(fit(Interpolation::get(1, 1), [](const auto& x) { return double(x[0] * x[0]); }));
  EXPECT_FALSE(
      fit(Interpolation::get(2, 2), [](const auto& x) { return double(x[0] * x[1] * x[1]); }));
  EXPECT_FALSE(in.fit({{1, 2, std::numeric_limits<double>::quiet_NaN(), 4}}, 5));
  // Values too large for the 64-bit fast path still fit exactly (128-bit arithmetic).
  const auto big = fit(Interpolation::get(3, 3),
                       [](const auto& x) { return 1e9 * double(x[0] * x[1] * x[2]) + 7; });
  ASSERT_TRUE(big);
  EXPECT_EQ(big->str({"a", "b", "c"}, format_exact), "1000000000·a·b·c + 7");
}

TEST(AnalyzerInterpolation, ConstantsAndNonIntegers) {
  const Interpolation& in = Interpolation::get(2, 3);
  const auto c = fit(in, [](const auto&) { return 42.0; });
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->is_constant());
  EXPECT_EQ(c->constant_term(), 42);
  const auto p = fit(in, [](const auto& x) { return 0.25 * double(x[0]) + 0.1; });
  ASSERT_TRUE(p);
  const double at[] = {8, 0};
  EXPECT_NEAR(p->evaluate(at), 2.1, 1e-12);
}

}  // namespace
}  // namespace strata::analyzer
