// Timed runs for throughput: one or more sessions of the same model (streams) run concurrently,
// each on its own thread, for a number of iterations or for a duration, their inputs taken
// round-robin from a list of input sets. With one stream this is the plain timed loop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/progress.h"
#include "runtime/session.h"

namespace strata::runtime {

struct StreamPlan {
  int warmup = 1;               // untimed-for-statistics runs per stream, before the timed phase
  int iterations = 10;          // timed runs per stream, when duration_seconds is 0
  double duration_seconds = 0;  // > 0: every stream runs until this much time has passed
  // Told by the first stream after each of its runs ("warm-up", "iterations"; with a duration the
  // total is unknown): between timed regions, never inside one.
  ProgressFn progress;
};

struct StreamTimings {
  std::vector<double> warmup_ms;
  std::vector<double> iterations_ms;
};

struct StreamsResult {
  std::vector<StreamTimings> streams;  // per session
  // From the start of the timed phase (every stream warmed up) to the end of the last run.
  double wall_ms = 0;
  int64_t inferences() const;
  double throughput_per_s() const;  // inferences over wall time
};

// Runs every session in `sessions` on a thread of its own (the first on the caller's thread), each
// with the OpenMP thread count it was prepared with. Run k of the whole (warm-up and timed, all
// streams) binds input_sets[k mod size]. The timed phase starts when every stream has warmed up.
// A failing run stops every stream; its error is rethrown.
StreamsResult run_streams(const std::vector<Session*>& sessions,
                          const std::vector<std::vector<const Tensor*>>& input_sets,
                          const StreamPlan& plan);

}  // namespace strata::runtime
