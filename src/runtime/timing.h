// Timed runs of a session: warm-up iterations, then measured iterations.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "runtime/session.h"

namespace strata::runtime {

struct RunTimings {
  std::vector<double> warmup_ms;
  std::vector<double> iterations_ms;
};

// Runs `warmup` + `iterations` times, timing each whole run with a monotonic clock.
// `on_run(kind, index, ms)` is called after each run (kind "warmup" or "iter") for live output.
RunTimings time_runs(Session& session, const std::vector<const Tensor*>& inputs, int warmup,
                     int iterations,
                     const std::function<void(const char*, int, double)>& on_run = nullptr);

// Milliseconds since `start` on the monotonic clock used for all strata timings.
double elapsed_ms(const std::chrono::steady_clock::time_point& start);

}  // namespace strata::runtime
