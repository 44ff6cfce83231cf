#include "profiler/isolation.h"

#include "core/error.h"
#include "profiler/collector.h"
#include "profiler/stats.h"
#include "profiler/tick_clock.h"

namespace strata::profiler {

namespace {

// Re-runs each step as soon as it has run in sequence: its inputs are still live in the arena
// then (later steps may reuse their buffers).
class IsolationHooks : public runtime::RunHooks {
 public:
  IsolationHooks(runtime::Session& session, int repeats, const ProgressFn& progress)
      : session_(session),
        repeats_(repeats),
        samples_(session.steps().size()),
        progress_(progress) {}
  void before_node(size_t) override {}
  void after_node(size_t step) override {
    time_alone(step);
    if (progress_) progress_("isolation", int64_t(step + 1), int64_t(samples_.size()));
  }
  const std::vector<std::vector<double>>& samples() const { return samples_; }

 private:
  void time_alone(size_t step) {
    if (session_.steps()[step].in_place) return;  // re-run, it would read its own output
    session_.run_step(step);                      // warm-up: caches now hold what this node touches
    std::vector<double>& out = samples_[step];
    out.reserve(size_t(repeats_));
    for (int i = 0; i < repeats_; ++i) {
      const int64_t start = ticks();
      session_.run_step(step);
      out.push_back(tick_span_ms(start, ticks()));
    }
  }

  runtime::Session& session_;
  int repeats_;
  std::vector<std::vector<double>> samples_;
  const ProgressFn& progress_;
};

}  // namespace

std::vector<double> isolated_medians(runtime::Session& session,
                                     const std::vector<const Tensor*>& inputs, int repeats,
                                     const ProgressFn& progress) {
  if (repeats < 1) fail("--isolate-repeats must be at least 1, not {}", repeats);
  IsolationHooks hooks(session, repeats, progress);
  {
    AttachedHooks attached(session, &hooks);
    session.run(inputs);
  }
  std::vector<double> medians;
  for (const std::vector<double>& s : hooks.samples())
    medians.push_back(s.empty() ? -1 : summarize(s).median);
  return medians;
}

}  // namespace strata::profiler
