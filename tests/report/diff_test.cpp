#include "report/diff.h"

#include <gtest/gtest.h>

#include <random>

#include "report/profile_json.h"
#include "testutil/test_files.h"

namespace strata::report {
namespace {

using test::kReportDataDir;

std::vector<double> normal_samples(double mean, double sd, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(Bootstrap, KnownSamplesGiveKnownMediansAndRatio) {
  const RatioEstimate e = compare_samples({5, 1, 4, 2, 3}, {2, 8, 4, 6, 10, 12});
  EXPECT_DOUBLE_EQ(e.median_a, 3);
  EXPECT_DOUBLE_EQ(e.median_b, 7);  // even count: mean of the middle two
  EXPECT_DOUBLE_EQ(e.ratio, 7.0 / 3);
  EXPECT_LE(e.low, e.ratio);
  EXPECT_GE(e.high, e.ratio);
}

TEST(Bootstrap, ConstantSamplesGiveAPointInterval) {
  const RatioEstimate e = compare_samples(std::vector<double>(8, 2.0), std::vector<double>(6, 3.0));
  EXPECT_DOUBLE_EQ(e.low, 1.5);
  EXPECT_DOUBLE_EQ(e.high, 1.5);
  EXPECT_EQ(e.verdict, Verdict::kSlower);
}

TEST(Bootstrap, ClearlySeparatedSamplesAreFasterOrSlower) {
  const std::vector<double> base = normal_samples(10, 0.3, 20, 1);
  const RatioEstimate faster = compare_samples(base, normal_samples(8, 0.3, 20, 2));
  EXPECT_EQ(faster.verdict, Verdict::kFaster);
  EXPECT_LT(faster.high, 1);
  EXPECT_NEAR(faster.ratio, 0.8, 0.03);
  const RatioEstimate slower = compare_samples(base, normal_samples(12, 0.3, 20, 3));
  EXPECT_EQ(slower.verdict, Verdict::kSlower);
  EXPECT_GT(slower.low, 1);
  EXPECT_STREQ(verdict_name(faster.verdict), "faster");
  EXPECT_STREQ(verdict_name(slower.verdict), "slower");
}

TEST(Bootstrap, IdenticalDistributionsShowNoSignificantChange) {
  const std::vector<double> a = normal_samples(10, 1, 30, 4);
  const RatioEstimate same = compare_samples(a, a);
  EXPECT_DOUBLE_EQ(same.ratio, 1);
  EXPECT_EQ(same.verdict, Verdict::kNoChange);
  // Two draws from one noisy distribution: the medians differ, the interval still covers 1.
  const RatioEstimate draws = compare_samples(a, normal_samples(10, 1, 30, 5));
  EXPECT_NE(draws.ratio, 1);
  EXPECT_LT(draws.low, 1);
  EXPECT_GT(draws.high, 1);
  EXPECT_EQ(draws.verdict, Verdict::kNoChange);
  EXPECT_STREQ(verdict_name(draws.verdict), "no significant change");
}

TEST(Bootstrap, FixedSeedIsReproducibleAndMoreSamplesNarrowTheInterval) {
  const std::vector<double> a = normal_samples(10, 1, 10, 6), b = normal_samples(10, 1, 10, 7);
  const RatioEstimate e1 = compare_samples(a, b), e2 = compare_samples(a, b);
  EXPECT_EQ(e1.low, e2.low);
  EXPECT_EQ(e1.high, e2.high);
  const RatioEstimate wide = compare_samples(a, b);
  const RatioEstimate narrow =
      compare_samples(normal_samples(10, 1, 400, 6), normal_samples(10, 1, 400, 7));
  EXPECT_LT(narrow.high - narrow.low, (wide.high - wide.low) / 2);
}

TEST(Bootstrap, ChangesSmallerThanTheMarginAreNotCalled) {
  // 1% faster with little noise: the interval excludes 1 but stays inside the default ±2%.
  const std::vector<double> a = normal_samples(10, 0.02, 50, 8),
                            b = normal_samples(9.9, 0.02, 50, 9);
  const RatioEstimate e = compare_samples(a, b);
  EXPECT_LT(e.high, 1);
  EXPECT_GT(e.low, 0.98);
  EXPECT_EQ(e.verdict, Verdict::kNoChange);
  BootstrapOptions no_margin;
  no_margin.min_change = 0;
  EXPECT_EQ(compare_samples(a, b, no_margin).verdict, Verdict::kFaster);
}

TEST(Bootstrap, TooFewSamplesGiveNoVerdict) {
  const RatioEstimate e = compare_samples({1, 1, 1, 1}, {2, 2, 2, 2, 2});
  EXPECT_EQ(e.verdict, Verdict::kTooFewSamples);
  EXPECT_DOUBLE_EQ(e.ratio, 2);
  EXPECT_EQ(compare_samples({}, {}).verdict, Verdict::kTooFewSamples);
}

TEST(ProfileDiff, SmallProfilesMatchNodesAndTypes) {
  const profiler::Profile a = read_profile(kReportDataDir + "small_profile.json");
  const profiler::Profile b = read_profile(kReportDataDir + "small_profile_b.json");
  const ProfileDiff d = diff_profiles(a, b);
  EXPECT_EQ(d.whole.verdict, Verdict::kFaster);
  EXPECT_DOUBLE_EQ(d.whole.median_a, 10.05);
  EXPECT_DOUBLE_EQ(d.whole.median_b, 9.0);
  EXPECT_EQ(d.whole_unprofiled.verdict, Verdict::kTooFewSamples);  // B has none
  ASSERT_EQ(d.nodes.size(), 9u);                                   // A's 8, then B's MatMul
  auto find = [&](const std::string& name) {
    for (const NodeChange& c : d.nodes)
      if (c.name == name) return c;
    ADD_FAILURE() << name;
    return NodeChange{};
  };
  EXPECT_EQ(find("/conv1/Conv").estimate.verdict, Verdict::kFaster);
  EXPECT_EQ(find("/layer1/layer1.0/conv1/Conv").estimate.verdict, Verdict::kSlower);
  EXPECT_EQ(find("/relu/Relu").estimate.verdict, Verdict::kNoChange);
  EXPECT_EQ(find("/fc/Flatten").estimate.verdict, Verdict::kNoChange);
  const NodeChange gemm = find("/fc/Gemm");
  EXPECT_TRUE(gemm.in_a);
  EXPECT_FALSE(gemm.in_b);
  EXPECT_DOUBLE_EQ(gemm.estimate.median_a, 1.0);
  const NodeChange matmul = find("/fc/MatMul");
  EXPECT_FALSE(matmul.in_a);
  EXPECT_TRUE(matmul.in_b);
  EXPECT_TRUE(d.notes.empty());
  // Conv per iteration: A 4.0+3.05 → B 3.0+3.5; a sum over both convs of each iteration.
  for (const TypeChange& t : d.types) {
    if (t.op_type != "Conv") continue;
    EXPECT_EQ(t.nodes_a, 2u);
    EXPECT_NEAR(t.estimate.median_a, 7.05, 1e-9);
    EXPECT_NEAR(t.estimate.median_b, 6.5, 1e-9);
  }
}

TEST(ProfileDiff, NotesWhatMakesTheComparisonUnfair) {
  profiler::Profile a = read_profile(kReportDataDir + "small_profile.json");
  profiler::Profile b = a;
  b.threads = 4;
  b.machine.cpu = "Other CPU";
  b.model_sha256 = std::string(64, 'f');
  const ProfileDiff d = diff_profiles(a, b);
  ASSERT_EQ(d.notes.size(), 3u);
  EXPECT_EQ(d.whole.verdict, Verdict::kNoChange);
  for (const NodeChange& c : d.nodes) EXPECT_EQ(c.estimate.verdict, Verdict::kNoChange) << c.name;
}

}  // namespace
}  // namespace strata::report
