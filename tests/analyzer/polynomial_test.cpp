#include "analyzer/polynomial.h"

#include <gtest/gtest.h>

namespace strata::analyzer {
namespace {

Polynomial::Term term(double c, std::initializer_list<uint8_t> exponents) {
  Polynomial::Term t{c, {}};
  size_t i = 0;
  for (uint8_t e : exponents) t.exponents[i++] = e;
  return t;
}

TEST(AnalyzerPolynomial, PrintsHighestDegreeFirstWithThreeDigits) {
  const Polynomial p({term(1.2e6, {}), term(8.18e9, {1})});
  EXPECT_EQ(p.str({"N"}), "8.18e9·N + 1.2e6");
  EXPECT_EQ(Polynomial({term(2, {1, 2}), term(-3, {1}), term(1, {0, 1})}).str({"N", "seq"}),
            "2·N·seq² - 3·N + seq");
  EXPECT_EQ(Polynomial().str({"N"}), "0");
  EXPECT_EQ(Polynomial({term(-1, {3})}).str({"N"}), "-N³");
}

TEST(AnalyzerPolynomial, MergesLikeTermsAndDropsZeros) {
  const Polynomial p({term(2, {1}), term(3, {1}), term(0, {2}), term(4, {})});
  ASSERT_EQ(p.terms().size(), 2u);
  EXPECT_EQ(p.str({"N"}), "5·N + 4");
  EXPECT_EQ(p.degree(), 1);
  EXPECT_FALSE(p.is_constant());
  EXPECT_EQ(p.constant_term(), 4);
  EXPECT_TRUE((p + Polynomial({term(-5, {1})})).is_constant());
}

TEST(AnalyzerPolynomial, Evaluates) {
  const Polynomial p({term(3, {2, 1}), term(5, {0, 1}), term(-7, {})});
  const double at[] = {2, 10};
  EXPECT_EQ(p.evaluate(at), 3 * 4 * 10 + 5 * 10 - 7);
  EXPECT_EQ((2.0 * p).evaluate(at), 2 * (3 * 4 * 10 + 5 * 10 - 7));
}

TEST(AnalyzerPolynomial, CustomCoefficientFormat) {
  const Polynomial p({term(12, {1}), term(1, {0, 1})});
  EXPECT_EQ(p.str({"N", "S"}, format_exact), "12·N + S");
}

TEST(AnalyzerPolynomial, FormatsCounts) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(768), "768");
  EXPECT_EQ(format_count(0.5), "0.5");
  EXPECT_EQ(format_count(4.0899e9), "4.09e9");
  EXPECT_EQ(format_count(1.2e6), "1.2e6");
  EXPECT_EQ(format_count(9.999e9), "1e10");
  EXPECT_EQ(format_count(-25557032), "-2.56e7");
  EXPECT_EQ(format_exact(25557032), "25557032");
}

}  // namespace
}  // namespace strata::analyzer
