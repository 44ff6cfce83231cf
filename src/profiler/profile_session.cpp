#include "profiler/profile_session.h"

#include <algorithm>

#include "core/error.h"
#include "profiler/collected_profile.h"
#include "profiler/collector.h"
#include "profiler/isolation.h"
#include "profiler/resource_usage.h"
#include "profiler/stats.h"
#include "profiler/tick_clock.h"

namespace strata::profiler {

namespace {

// Events are kept in memory until the profile is built; bound what a command line can ask for.
constexpr double kMaxEventBytes = double(int64_t(1) << 30);

// Runs with `collector` as the session's hooks for this run only.
void profiled_run(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                  Collector& collector) {
  AttachedHooks attached(session, &collector);
  collector.begin_run();
  session.run(inputs);
  collector.end_run();
}

double unprofiled_run(runtime::Session& session, const std::vector<const Tensor*>& inputs) {
  // The same clock as the profiled runs, so both pay the same for reading it.
  const int64_t start = ticks();
  session.run(inputs);
  return tick_span_ms(start, ticks());
}

// The most profiled runs the event buffers' limit holds for `steps` steps.
size_t max_recorded_runs(size_t steps) {
  return size_t(
      std::max(1.0, kMaxEventBytes / (double(std::max<size_t>(steps, 1)) * sizeof(NodeEvent))));
}

// Room for the profiled runs of a --duration: four times the pairs the pace of the last warm-up
// run (else the cold first run) would fit, as runs get faster once warm, within the event
// buffers' limit. A warm-up slowed down (a preempted run) can still leave too little: the loop
// then adds room.
size_t duration_capacity(double duration_seconds, double pair_ms, size_t steps) {
  const double wanted = 4 * duration_seconds * 1000 / std::max(pair_ms, 1e-3) + 16;
  return std::min(size_t(std::max(1.0, wanted)), max_recorded_runs(steps));
}

}  // namespace

Profile profile_session(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                        const ProfileRunOptions& options) {
  return profile_session(session, std::vector<std::vector<const Tensor*>>{inputs}, options);
}

Profile profile_session(runtime::Session& session,
                        const std::vector<std::vector<const Tensor*>>& input_sets,
                        const ProfileRunOptions& options) {
  if (input_sets.empty()) fail_internal("profile_session needs at least one input set");
  const bool by_time = options.duration_seconds > 0;
  if (!by_time && options.iterations < 1)
    fail("profiling needs at least 1 iteration, not {}", options.iterations);
  if (options.warmup < 0) fail("the warm-up count must not be negative, not {}", options.warmup);
  const size_t steps = session.steps().size();
  const double event_bytes = double(steps) * options.iterations * double(sizeof(NodeEvent));
  if (!by_time && event_bytes > kMaxEventBytes)
    fail(
        "{} iterations of {} nodes would need {:.0f} bytes of event buffers, over the limit of "
        "{}: profile fewer iterations",
        options.iterations, steps, event_bytes, kMaxEventBytes);
  const auto set = [&](int64_t i) -> const std::vector<const Tensor*>& {
    return input_sets[size_t(i) % input_sets.size()];
  };

  const auto progress = [&](const char* phase, int64_t done, int64_t total) {
    if (options.progress) options.progress(phase, done, total);
  };
  Collector cold(steps, 1);
  progress("first run", 0, 1);
  profiled_run(session, set(0), cold);
  double pair_ms = 2 * double(cold.run_end_ns(0) - cold.run_start_ns(0)) * 1e-6;
  for (int i = 0; i < options.warmup; ++i) {
    progress("warm-up", i, options.warmup);
    const double ms = unprofiled_run(session, set(i));
    if (i == options.warmup - 1) pair_ms = 2 * ms;
  }

  size_t capacity = by_time ? duration_capacity(options.duration_seconds, pair_ms, steps)
                            : size_t(options.iterations);
  Collector collector(steps, capacity);
  std::vector<double> unprofiled;
  unprofiled.reserve(capacity);
  const UsageReading usage_from = read_usage();
  const int64_t start = ticks();
  const auto more = [&](size_t i) {
    if (!by_time) return i < capacity;
    if (i == 0) return true;
    if (tick_span_ms(start, ticks()) >= options.duration_seconds * 1e3) return false;
    if (i == capacity) {  // runs got faster than the warm-up promised: room for as many again
      const size_t added = std::min(capacity, max_recorded_runs(steps) - capacity);
      if (added == 0) return false;
      collector.add_room(added);
      unprofiled.reserve(capacity + added);
      capacity += added;
    }
    return true;
  };
  for (size_t i = 0; more(i); ++i) {
    const bool profiled_first = i % 2 == 0;
    if (profiled_first) profiled_run(session, set(int64_t(i)), collector);
    unprofiled.push_back(unprofiled_run(session, set(int64_t(i))));
    if (!profiled_first) profiled_run(session, set(int64_t(i)), collector);
    progress("iterations", int64_t(i + 1), by_time ? 0 : options.iterations);
  }
  const UsageReading usage_to = read_usage();

  Profile profile = collected_profile(session, collector);
  profile.warmup = options.warmup;
  profile.first_iteration_ms = double(cold.run_end_ns(0) - cold.run_start_ns(0)) * 1e-6;
  for (size_t s = 0; s < steps; ++s) {
    const NodeEvent e = cold.event(0, s);
    profile.nodes[s].first_run_ms = double(e.end_ns - e.start_ns - e.body_ns) * 1e-6;
  }
  profile.unprofiled_ms = std::move(unprofiled);
  profile.overhead_pct = overhead_pct(profile.iterations_ms, profile.unprofiled_ms);
  profile.process_cpu_pct = process_cpu_pct(usage_from, usage_to);
  profile.system_cpu_pct = system_cpu_pct(usage_from, usage_to);

  if (options.isolate) {
    const std::vector<double> medians =
        isolated_medians(session, set(0), options.isolate_repeats, options.progress);
    for (size_t s = 0; s < steps; ++s) profile.nodes[s].isolated_median_ms = medians[s];
  }
  profile.peak_rss_bytes = peak_rss_bytes();
  add_body_rows(profile, collector, cold);
  return profile;
}

}  // namespace strata::profiler
