// Timed runs of one or more sessions: counts, durations, round-robin inputs, errors.
#include "runtime/streams.h"

#include <gtest/gtest.h>

#include <memory>

#include "profiler/profiler_test_model.h"

namespace strata::test {
namespace {

using runtime::run_streams;
using runtime::StreamPlan;
using runtime::StreamsResult;

TEST(Streams, OneStreamRunsTheCountAndReportsProgress) {
  ProfilerTestSession t;
  StreamPlan plan;
  plan.warmup = 2;
  plan.iterations = 7;
  std::vector<std::string> phases;
  plan.progress = [&](const char* phase, int64_t done, int64_t total) {
    phases.push_back(std::string(phase) + " " + std::to_string(done) + "/" + std::to_string(total));
  };
  const StreamsResult r = run_streams({&t.session}, {t.inputs}, plan);
  ASSERT_EQ(r.streams.size(), 1u);
  EXPECT_EQ(r.streams[0].warmup_ms.size(), 2u);
  EXPECT_EQ(r.streams[0].iterations_ms.size(), 7u);
  EXPECT_EQ(r.inferences(), 7);
  EXPECT_GT(r.wall_ms, 0);
  EXPECT_GT(r.throughput_per_s(), 0);
  ASSERT_EQ(phases.size(), 9u);
  EXPECT_EQ(phases[0], "warm-up 1/2");
  EXPECT_EQ(phases[8], "iterations 7/7");
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());
}

TEST(Streams, ConcurrentSessionsEachRunTheirCount) {
  ProfilerTestSession a, b;
  StreamPlan plan;
  plan.iterations = 5;
  const StreamsResult r = run_streams({&a.session, &b.session}, {a.inputs}, plan);
  ASSERT_EQ(r.streams.size(), 2u);
  for (const runtime::StreamTimings& s : r.streams) {
    EXPECT_EQ(s.warmup_ms.size(), 1u);
    EXPECT_EQ(s.iterations_ms.size(), 5u);
  }
  EXPECT_EQ(r.inferences(), 10);
  EXPECT_EQ(a.y(), ProfilerTestSession::expected_y());
  EXPECT_EQ(b.y(), ProfilerTestSession::expected_y());
}

TEST(Streams, ADurationRunsUntilTheTimeIsUsed) {
  ProfilerTestSession t;
  StreamPlan plan;
  plan.duration_seconds = 0.2;
  const StreamsResult r = run_streams({&t.session}, {t.inputs}, plan);
  EXPECT_GE(r.wall_ms, 200);
  EXPECT_LT(r.wall_ms, 2000);
  EXPECT_GT(r.inferences(), 10);  // a run of this model takes microseconds
}

TEST(Streams, InputSetsAreTakenRoundRobin) {
  ProfilerTestSession t;
  Tensor other_x = Tensor::from<float>({2, 3}, {0, 0, 0, 0, 0, 1});
  const std::vector<const Tensor*> other = {&other_x, &t.target};
  StreamPlan plan;
  plan.warmup = 0;
  plan.iterations = 1;
  run_streams({&t.session}, {t.inputs, other}, plan);
  EXPECT_EQ(t.y(), ProfilerTestSession::expected_y());  // run 0: the first set
  plan.iterations = 2;
  run_streams({&t.session}, {t.inputs, other}, plan);
  EXPECT_EQ(t.y(), (std::vector<float>{0, 0, 0, 3}));  // run 1: the second set, Relu(x @ w)
}

TEST(Streams, AFailingRunStopsEveryStreamAndIsRethrown) {
  ProfilerTestSession a, b;
  Tensor wrong_target = Tensor::from<int64_t>({2}, {7, 7});  // 49 elements from 6: Reshape fails
  const std::vector<const Tensor*> bad = {&a.x, &wrong_target};
  StreamPlan plan;
  plan.iterations = 3;
  EXPECT_THROW(run_streams({&a.session, &b.session}, {bad}, plan), Error);
}

}  // namespace
}  // namespace strata::test
