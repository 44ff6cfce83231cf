#include "profiler/stats.h"

#include <gtest/gtest.h>

namespace strata::profiler {
namespace {

TEST(Stats, KnownSampleGivesKnownFigures) {
  const Summary s = summarize({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_NEAR(s.sd, 1.5811388, 1e-6);  // sample sd of 1..5
  EXPECT_NEAR(s.p90, 4.6, 1e-12);      // numpy.percentile([1..5], 90)
  EXPECT_NEAR(s.p99, 4.96, 1e-12);
  EXPECT_NEAR(s.cv, 1.5811388 / 3, 1e-6);
}

TEST(Stats, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 10}).median, 2.5);
}

TEST(Stats, EmptyAndSingle) {
  EXPECT_EQ(summarize({}).count, 0u);
  const Summary one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.sd, 0);
}

TEST(Stats, WarnsOnSpreadOutliersAndFewSamples) {
  EXPECT_NE(stability_warning(summarize({1, 1})), "");
  EXPECT_EQ(stability_warning(summarize({10, 10.1, 9.9, 10, 10.05, 9.95})), "");
  EXPECT_NE(stability_warning(summarize({10, 20, 5, 10, 30, 8})).find("CV"), std::string::npos);
  std::vector<double> spike(100, 10.0);  // one slow run among steady ones: CV stays under 10%
  spike.back() = 16;
  EXPECT_NE(stability_warning(summarize(spike)).find("outliers"), std::string::npos);
}

}  // namespace
}  // namespace strata::profiler
