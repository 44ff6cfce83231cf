// The profiler's overhead from paired runs, and its bootstrap interval.
#include "profiler/overhead.h"

#include <gtest/gtest.h>

namespace strata::profiler {
namespace {

TEST(Overhead, MedianOfPairedRatiosMinusOne) {
  EXPECT_NEAR(overhead_pct({11, 11, 99}, {10, 10, 1}), 10, 1e-9);
  EXPECT_NEAR(overhead_pct({9, 9}, {10, 10}), -10, 1e-9);
  // Runs are compared with their neighbour: the machine speeding up or slowing down between pairs
  // does not show, although the two sets' medians (30.3 vs 10) differ threefold.
  EXPECT_NEAR(overhead_pct({10.1, 30.3, 30.3}, {10, 30, 5}), 1, 1e-9);
  EXPECT_DOUBLE_EQ(overhead_pct({}, {10}), 0);
  EXPECT_DOUBLE_EQ(overhead_pct({10}, {}), 0);
}

TEST(Overhead, IntervalOfIdenticalPairsIsThePoint) {
  const OverheadEstimate e = estimate_overhead({10.2, 20.4, 5.1, 40.8}, {10, 20, 5, 40});
  EXPECT_EQ(e.pairs, 4u);
  EXPECT_NEAR(e.pct, 2, 1e-9);
  EXPECT_NEAR(e.low_pct, 2, 1e-9);
  EXPECT_NEAR(e.high_pct, 2, 1e-9);
}

TEST(Overhead, IntervalSurroundsTheEstimateAndWidensWithSpread) {
  // Ratios 1.00, 1.01, ..., 1.10 (paired), then the same spread ten times wider.
  std::vector<double> p, u, wide_p;
  for (int i = 0; i <= 10; ++i) {
    u.push_back(100);
    p.push_back(100 + i);
    wide_p.push_back(100 + 10 * i);
  }
  const OverheadEstimate narrow = estimate_overhead(p, u);
  const OverheadEstimate wide = estimate_overhead(wide_p, u);
  EXPECT_NEAR(narrow.pct, 5, 1e-9);
  EXPECT_LE(narrow.low_pct, narrow.pct);
  EXPECT_GE(narrow.high_pct, narrow.pct);
  EXPECT_LT(narrow.low_pct, narrow.high_pct);
  EXPECT_GE(narrow.low_pct, 0);
  EXPECT_LE(narrow.high_pct, 10);
  EXPECT_GT(wide.high_pct - wide.low_pct, 5 * (narrow.high_pct - narrow.low_pct));
  // Fixed seed: the same samples give the same interval.
  const OverheadEstimate again = estimate_overhead(p, u);
  EXPECT_EQ(again.low_pct, narrow.low_pct);
  EXPECT_EQ(again.high_pct, narrow.high_pct);
}

TEST(Overhead, NoPairsNoEstimate) {
  const OverheadEstimate e = estimate_overhead({}, {});
  EXPECT_EQ(e.pairs, 0u);
  EXPECT_EQ(e.pct, 0);
}

}  // namespace
}  // namespace strata::profiler
