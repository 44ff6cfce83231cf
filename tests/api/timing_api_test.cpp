// strata/timing.h: timed runs on one session or on streams, the latency summary and the warnings
// that come with the figures.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <string>
#include <vector>

#include "api/error_of.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

TEST(TimingApi, LatencySummaryIsNumpys) {
  const LatencySummary s = summarize_latency({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.min_ms, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 4);
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_NEAR(s.sd_ms, 1.2909944, 1e-6);  // sample sd (n - 1)
  EXPECT_NEAR(s.p90_ms, 3.7, 1e-12);      // numpy.percentile([1,2,3,4], 90)
  EXPECT_NEAR(s.p99_ms, 3.97, 1e-12);
  EXPECT_NEAR(s.cv, s.sd_ms / s.mean_ms, 1e-12);
  EXPECT_EQ(summarize_latency({}).count, 0u);
}

TEST(TimingApi, CountsRunsPerStreamRoundRobinOverInputSets) {
  const Model model = Model::load(kExampleModel);
  InputOptions other;
  other.seed = 3;
  const std::vector<NamedArrays> sets = {bind_inputs(model, {}), bind_inputs(model, other)};
  Session first(model, sets[0]);
  Session second = first.clone();
  std::vector<std::string> phases;
  TimingOptions options;
  options.warmup = 2;
  options.iterations = 5;
  options.progress = [&phases](const char* phase, int64_t, int64_t) {
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
  };
  const Timings t = time_runs({&first, &second}, sets, options);
  ASSERT_EQ(t.streams.size(), 2u);
  for (const StreamTimes& s : t.streams) {
    EXPECT_EQ(s.warmup_ms.size(), 2u);
    EXPECT_EQ(s.iterations_ms.size(), 5u);
    for (double ms : s.iterations_ms) EXPECT_GT(ms, 0);
  }
  EXPECT_EQ(t.timed_runs(), 10);
  EXPECT_EQ(t.iterations_ms().size(), 10u);
  EXPECT_EQ(t.iterations_ms()[5], t.streams[1].iterations_ms[0]);  // stream by stream
  EXPECT_EQ(t.threads, 2);
  EXPECT_GT(t.wall_ms, 0);
  EXPECT_NEAR(t.throughput_per_s(), 10 * 1000.0 / t.wall_ms, 1e-9);
  EXPECT_FALSE(phases.empty());
  EXPECT_EQ(first.outputs()[0].name, "probabilities");  // the timed runs count as runs
}

TEST(TimingApi, ADurationRunsUntilItHasPassed) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  Session session(model, inputs);
  TimingOptions options;
  options.warmup = 0;
  options.duration_seconds = 0.2;
  const Timings t = time_runs({&session}, {inputs}, options);
  EXPECT_TRUE(t.streams[0].warmup_ms.empty());
  EXPECT_GE(t.wall_ms, 200);
  EXPECT_GT(t.timed_runs(), 1);
}

TEST(TimingApi, TooFewRunsAreWarnedAbout) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  Session session(model, inputs);
  TimingOptions options;
  options.iterations = 2;
  const std::vector<std::string> w = time_runs({&session}, {inputs}, options).warnings();
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w[0].find("only 2 iterations"), std::string::npos) << w[0];
}

TEST(TimingApi, BadOptionsAndInputsAreOneSentence) {
  const Model model = Model::load(kExampleModel);
  const NamedArrays inputs = bind_inputs(model, {});
  Session session(model, inputs);
  TimingOptions none;
  none.iterations = 0;
  EXPECT_NE(error_of([&] { time_runs({&session}, {inputs}, none); }).find("iterations"),
            std::string::npos);
  EXPECT_NE(error_of([&] { time_runs({}, {inputs}); }).find("session"), std::string::npos);
  EXPECT_NE(error_of([&] { time_runs({&session}, {}); }).find("input set"), std::string::npos);
  InputOptions bigger;
  bigger.arrays["image"] = Array(DType::kF32, {2, 3, 32, 32});
  const NamedArrays wrong = bind_inputs(model, bigger);
  EXPECT_NE(error_of([&] {
              time_runs({&session}, {inputs, wrong});
            }).find("prepared for"),
            std::string::npos);
  // Streams read the same inputs: a session of another model cannot be one.
  test::ModelBuilder m;
  m.add_input("image", DType::kF32, {2});
  m.add_node("Relu", {"image"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {2});
  test::TempDir dir;
  const Model relu = Model::load(m.save(dir.path("relu.onnx")));
  Session other(relu, bind_inputs(relu, {}));
  EXPECT_NE(error_of([&] {
              time_runs({&session, &other}, {inputs});
            }).find("session 1"),
            std::string::npos);
}

}  // namespace
}  // namespace strata
