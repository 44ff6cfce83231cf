#include "runtime/timing.h"

#include <chrono>

namespace strata::runtime {

double elapsed_ms(const std::chrono::steady_clock::time_point& start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

RunTimings time_runs(Session& session, const std::vector<const Tensor*>& inputs, int warmup,
                     int iterations, const std::function<void(const char*, int, double)>& on_run) {
  RunTimings t;
  for (int i = 0; i < warmup + iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    session.run(inputs);
    const double ms = elapsed_ms(start);
    const bool is_warmup = i < warmup;
    (is_warmup ? t.warmup_ms : t.iterations_ms).push_back(ms);
    if (on_run) on_run(is_warmup ? "warmup" : "iter", is_warmup ? i : i - warmup, ms);
  }
  return t;
}

}  // namespace strata::runtime
