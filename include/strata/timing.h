// strata::time_runs: whole-inference latency and throughput, as `strata run` measures them: warm-up
// runs, then timed runs counted or for a duration, on one session or on several running at once
// (streams, each on its own thread), inputs taken round-robin from input sets.
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   strata::NamedArrays inputs = strata::bind_inputs(model, {});
//   strata::Session first(model, inputs);
//   strata::Session second = first.clone();  // a second stream, sharing the weights
//   strata::TimingOptions options;
//   options.iterations = 50;
//   strata::Timings t = strata::time_runs({&first, &second}, {inputs}, options);
//   strata::LatencySummary s = strata::summarize_latency(t.iterations_ms());
//   std::printf("median %.3f ms, %.1f inferences/s\n", s.median_ms, t.throughput_per_s());
//   for (const std::string& w : t.warnings()) strata::print_warning(w);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/progress.h"
#include "strata/session.h"

namespace strata {

struct TimingOptions {
  int warmup = 1;               // runs per stream before the timed ones, left out of the statistics
  int iterations = 10;          // timed runs per stream, when duration_seconds is 0
  double duration_seconds = 0;  // above 0: every stream runs until this much time has passed
  // Told by the first stream after each of its runs ("warm-up", "iterations"; with a duration
  // the total is unknown), never inside a timed run.
  ProgressFn progress{};
};

// Statistics of run times in milliseconds: percentiles interpolate as numpy's do, sd is the
// sample standard deviation.
struct LatencySummary {
  size_t count = 0;
  double min_ms = 0, median_ms = 0, mean_ms = 0, sd_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  double cv = 0;  // coefficient of variation (sd / mean)
};

LatencySummary summarize_latency(const std::vector<double>& ms);

struct StreamTimes {
  std::vector<double> warmup_ms, iterations_ms;
};

struct Timings {
  std::vector<StreamTimes> streams;  // per session, in the order given
  // From the start of the timed runs (every stream warmed up) to the end of the last one.
  double wall_ms = 0;
  int threads = 0;  // the sessions' threads, summed
  // CPU use while the runs went on, in percent of one CPU: this process' and the machine's.
  double process_cpu_pct = 0, system_cpu_pct = 0;

  int64_t timed_runs() const;                 // of every stream
  double throughput_per_s() const;            // timed runs over the wall time
  std::vector<double> iterations_ms() const;  // every stream's timed runs, stream by stream
  // Why the figures should not be trusted: unstable times (high variation, outliers, too few
  // runs), then a machine busy with other work or more threads than CPUs; empty when neither.
  std::vector<std::string> warnings() const;
};

// Runs every session on a thread of its own (the first on the caller's), each with its own thread
// count; run k of the whole (warm-up and timed, all streams) takes input_sets[k % size]. Every set
// must have the dtypes and shapes each session was prepared for. Throws strata::Error for bad
// options or inputs, and the first failing run's error (which stops every stream).
Timings time_runs(const std::vector<Session*>& sessions, const std::vector<NamedArrays>& input_sets,
                  const TimingOptions& options = {});

}  // namespace strata
