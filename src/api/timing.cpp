// strata::time_runs (include/strata/timing.h): runtime::run_streams behind the public API.
#include "strata/timing.h"

#include "api/session_impl.h"
#include "core/error.h"
#include "profiler/machine.h"
#include "profiler/resource_usage.h"
#include "profiler/stats.h"
#include "runtime/streams.h"

namespace strata {

namespace {

profiler::Summary to_summary(const LatencySummary& s) {
  profiler::Summary out;
  out.count = s.count;
  out.min = s.min_ms;
  out.median = s.median_ms;
  out.mean = s.mean_ms;
  out.sd = s.sd_ms;
  out.p90 = s.p90_ms;
  out.p99 = s.p99_ms;
  out.max = s.max_ms;
  out.cv = s.cv;
  return out;
}

// Prepared for inputs of the same names, kinds, dtypes and shapes.
bool same_inputs(const Session::Impl& a, const Session::Impl& b) {
  if (a.input_names != b.input_names) return false;
  for (size_t i = 0; i < a.prepared.size(); ++i)
    if (a.prepared[i].kind() != b.prepared[i].kind() ||
        a.prepared[i].dtype() != b.prepared[i].dtype() ||
        a.prepared[i].shape() != b.prepared[i].shape())
      return false;
  return true;
}

}  // namespace

LatencySummary summarize_latency(const std::vector<double>& ms) {
  const profiler::Summary s = profiler::summarize(ms);
  return {s.count, s.min, s.median, s.mean, s.sd, s.p90, s.p99, s.max, s.cv};
}

int64_t Timings::timed_runs() const {
  int64_t n = 0;
  for (const StreamTimes& s : streams) n += int64_t(s.iterations_ms.size());
  return n;
}

double Timings::throughput_per_s() const {
  return wall_ms > 0 ? double(timed_runs()) * 1000.0 / wall_ms : 0;
}

std::vector<double> Timings::iterations_ms() const {
  std::vector<double> all;
  for (const StreamTimes& s : streams)
    all.insert(all.end(), s.iterations_ms.begin(), s.iterations_ms.end());
  return all;
}

std::vector<std::string> Timings::warnings() const {
  std::vector<std::string> warnings;
  const std::string unstable =
      profiler::stability_warning(to_summary(summarize_latency(iterations_ms())));
  if (!unstable.empty()) warnings.push_back(unstable);
  const std::string busy = profiler::contention_warning(threads, profiler::logical_cpus(),
                                                        process_cpu_pct, system_cpu_pct);
  if (!busy.empty()) warnings.push_back(busy);
  return warnings;
}

Timings time_runs(const std::vector<Session*>& sessions, const std::vector<NamedArrays>& input_sets,
                  const TimingOptions& options) {
  if (sessions.empty()) fail("time_runs needs at least one session");
  if (input_sets.empty()) fail("time_runs needs at least one input set");
  if (options.iterations < 1) fail("iterations must be at least 1, not {}", options.iterations);
  if (options.warmup < 0) fail("warmup must not be negative, not {}", options.warmup);
  if (options.duration_seconds < 0) fail("duration_seconds must not be negative");
  std::vector<runtime::Session*> runtime_sessions;
  int threads = 0;
  for (size_t k = 0; k < sessions.size(); ++k) {
    if (!sessions[k]) fail("time_runs: session {} is null", k);
    const Session::Impl& s = sessions[k]->impl();
    // Every stream reads the same input tensors: checked against the first session's types.
    if (!same_inputs(s, sessions[0]->impl()))
      fail("time_runs: session {} was prepared for other inputs than session 0", k);
    runtime_sessions.push_back(s.session.get());
    threads += s.options.threads;
  }
  const Session::Impl::OrderedSets sets = sessions[0]->impl().order_sets(input_sets);

  runtime::StreamPlan plan;
  plan.warmup = options.warmup;
  plan.iterations = options.iterations;
  plan.duration_seconds = options.duration_seconds;
  plan.progress = options.progress;
  const profiler::UsageReading usage_from = profiler::read_usage();
  const runtime::StreamsResult result = runtime::run_streams(runtime_sessions, sets.pointers, plan);
  const profiler::UsageReading usage_to = profiler::read_usage();
  for (Session* s : sessions) s->impl().has_run = true;

  Timings t;
  for (const runtime::StreamTimings& s : result.streams)
    t.streams.push_back({s.warmup_ms, s.iterations_ms});
  t.wall_ms = result.wall_ms;
  t.threads = threads;
  t.process_cpu_pct = profiler::process_cpu_pct(usage_from, usage_to);
  t.system_cpu_pct = profiler::system_cpu_pct(usage_from, usage_to);
  return t;
}

}  // namespace strata
