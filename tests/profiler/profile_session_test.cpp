// The measurement procedure: cold run, warm-up, interleaved profiled/unprofiled runs, overhead,
// isolation.
#include "profiler/profile_session.h"

#include <gtest/gtest.h>

#include <chrono>

#include "profiler/isolation.h"
#include "profiler/profiler_test_model.h"

namespace strata::test {
namespace {

TEST(ProfileSession, FillsEveryMeasuredField) {
  ProfilerTestSession t;
  profiler::ProfileRunOptions options;
  options.warmup = 1;
  options.iterations = 5;
  const profiler::Profile p = profiler::profile_session(t.session, t.inputs, options);
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());
  EXPECT_EQ(p.warmup, 1);
  EXPECT_EQ(p.iterations_ms.size(), 5u);
  EXPECT_EQ(p.unprofiled_ms.size(), 5u);
  EXPECT_EQ(p.overhead_pct, profiler::overhead_pct(p.iterations_ms, p.unprofiled_ms));
  EXPECT_GT(p.first_iteration_ms, 0);
  EXPECT_GE(p.process_cpu_pct, 0);
  EXPECT_GT(p.peak_rss_bytes, 0);
  ASSERT_EQ(p.nodes.size(), 3u);
  for (const profiler::NodeProfile& n : p.nodes) {
    EXPECT_EQ(n.samples_ms.size(), 5u) << n.name;
    EXPECT_GE(n.first_run_ms, 0) << n.name;
    EXPECT_EQ(n.isolated_median_ms, -1) << n.name;
  }
}

TEST(ProfileSession, RejectsNoIterations) {
  ProfilerTestSession t;
  profiler::ProfileRunOptions options;
  options.iterations = 0;
  EXPECT_THROW(profiler::profile_session(t.session, t.inputs, options), Error);
}

TEST(ProfileSession, DurationRunsPairsUntilTheTimeIsUsed) {
  ProfilerTestSession t;
  profiler::ProfileRunOptions options;
  options.warmup = 1;
  options.iterations = 1;  // ignored with a duration
  options.duration_seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  const profiler::Profile p = profiler::profile_session(t.session, t.inputs, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.2);
  // A model of three tiny nodes runs far more than one pair in 0.2 s.
  EXPECT_GT(p.iterations_ms.size(), 10u);
  EXPECT_EQ(p.unprofiled_ms.size(), p.iterations_ms.size());
  for (const profiler::NodeProfile& n : p.nodes)
    EXPECT_EQ(n.samples_ms.size(), p.iterations_ms.size()) << n.name;
}

TEST(ProfileSession, InputSetsGoRoundRobin) {
  // Iteration i runs set i % 2; the outputs left are those of the last iteration's set.
  for (int iterations : {2, 3}) {
    ProfilerTestSession t;
    Tensor x2 = Tensor::from<float>({2, 3}, std::vector<float>(6, 0.0f));
    const std::vector<std::vector<const Tensor*>> sets = {t.inputs, {&x2, &t.target}};
    profiler::ProfileRunOptions options;
    options.warmup = 0;
    options.iterations = iterations;
    const profiler::Profile p = profiler::profile_session(t.session, sets, options);
    EXPECT_EQ(p.iterations_ms.size(), size_t(iterations));
    if (iterations % 2 == 0)
      EXPECT_EQ(t.y(), std::vector<float>(4, 0.0f)) << iterations;
    else
      EXPECT_EQ(t.y(), ProfilerTestSession::expected_y()) << iterations;
  }
}

TEST(Isolation, TimesEveryStepAloneAndKeepsTheOutputs) {
  ProfilerTestSession t;
  t.session.run(t.inputs);
  const std::vector<double> medians = profiler::isolated_medians(t.session, t.inputs, 3);
  ASSERT_EQ(medians.size(), 3u);
  for (size_t s = 0; s < medians.size(); ++s) {
    // A step whose output overwrites its input cannot be re-run on the same input.
    if (t.session.steps()[s].in_place)
      EXPECT_EQ(medians[s], -1) << s;
    else
      EXPECT_GE(medians[s], 0) << s;
  }
  EXPECT_FALSE(t.session.steps()[0].in_place);  // the MatMul, at least, is re-timed
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());
  EXPECT_EQ(t.session.output(1).shape(), (std::vector<int64_t>{3, 2}));
}

TEST(Isolation, ProfileShowsIsolatedBesideInSequence) {
  ProfilerTestSession t;
  profiler::ProfileRunOptions options;
  options.iterations = 2;
  options.isolate = true;
  options.isolate_repeats = 3;
  const profiler::Profile p = profiler::profile_session(t.session, t.inputs, options);
  for (size_t s = 0; s < p.nodes.size(); ++s)
    EXPECT_EQ(p.nodes[s].isolated_median_ms >= 0, !t.session.steps()[s].in_place) << s;
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());
}

TEST(Isolation, RejectsNoRepeats) {
  ProfilerTestSession t;
  EXPECT_THROW(profiler::isolated_medians(t.session, t.inputs, 0), Error);
}

}  // namespace
}  // namespace strata::test
