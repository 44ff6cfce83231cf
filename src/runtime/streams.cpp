#include "runtime/streams.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.h"
#include "kernels/omp_threads.h"
#include "runtime/timing.h"

namespace strata::runtime {

namespace {

using Clock = std::chrono::steady_clock;

// What the streams share: the next input set, the start of the timed phase, the first error.
struct Shared {
  Shared(const std::vector<std::vector<const Tensor*>>& sets, const StreamPlan& p)
      : input_sets(sets), plan(p) {}
  const std::vector<std::vector<const Tensor*>>& input_sets;
  const StreamPlan& plan;
  std::atomic<uint64_t> next_input{0};
  std::atomic<bool> stop{false};
  Clock::time_point start{};
  std::mutex error_mutex;
  std::exception_ptr error;

  const std::vector<const Tensor*>& inputs() {
    return input_sets[size_t(next_input.fetch_add(1) % input_sets.size())];
  }
  void failed(std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(error_mutex);
    if (!error) error = e;
    stop = true;
  }
};

template <class Barrier>
void run_stream(Session& session, size_t index, Shared& shared, Barrier& ready, StreamTimings& out,
                Clock::time_point& end) {
  const StreamPlan& plan = shared.plan;
  const ProgressFn& progress = index == 0 ? plan.progress : ProgressFn();
  const std::string timed_phase = plan.duration_seconds > 0
                                      ? fmt::format("iterations ({:g} s)", plan.duration_seconds)
                                      : "iterations";
  const kernels::OmpThreads threads(session.options().threads);  // this thread's OpenMP count
  try {
    for (int i = 0; i < plan.warmup && !shared.stop; ++i) {
      const auto& inputs = shared.inputs();
      const auto t0 = Clock::now();
      session.run(inputs);
      out.warmup_ms.push_back(elapsed_ms(t0));
      if (progress) progress("warm-up", i + 1, plan.warmup);
    }
  } catch (...) {
    shared.failed(std::current_exception());
  }
  ready.arrive_and_wait();  // every stream arrives exactly once, also after an error
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(plan.duration_seconds));
  try {
    if (plan.duration_seconds <= 0) out.iterations_ms.reserve(size_t(plan.iterations));
    for (int64_t i = 0; !shared.stop; ++i) {
      if (plan.duration_seconds > 0 ? Clock::now() - shared.start >= limit : i >= plan.iterations)
        break;
      const auto& inputs = shared.inputs();
      const auto t0 = Clock::now();
      session.run(inputs);
      out.iterations_ms.push_back(elapsed_ms(t0));
      if (progress)
        progress(timed_phase.c_str(), i + 1, plan.duration_seconds > 0 ? 0 : plan.iterations);
    }
  } catch (...) {
    shared.failed(std::current_exception());
  }
  end = Clock::now();
}

}  // namespace

int64_t StreamsResult::inferences() const {
  int64_t n = 0;
  for (const StreamTimings& s : streams) n += int64_t(s.iterations_ms.size());
  return n;
}

double StreamsResult::throughput_per_s() const {
  return wall_ms > 0 ? double(inferences()) * 1000.0 / wall_ms : 0;
}

StreamsResult run_streams(const std::vector<Session*>& sessions,
                          const std::vector<std::vector<const Tensor*>>& input_sets,
                          const StreamPlan& plan) {
  if (sessions.empty()) fail_internal("run_streams needs at least one session");
  if (input_sets.empty()) fail_internal("run_streams needs at least one input set");
  Shared shared(input_sets, plan);
  const auto mark_start = [&shared]() noexcept { shared.start = Clock::now(); };
  std::barrier ready(std::ptrdiff_t(sessions.size()), mark_start);
  StreamsResult result;
  result.streams.resize(sessions.size());
  std::vector<Clock::time_point> ends(sessions.size());
  std::vector<std::thread> threads;
  for (size_t s = 1; s < sessions.size(); ++s)
    threads.emplace_back(
        [&, s] { run_stream(*sessions[s], s, shared, ready, result.streams[s], ends[s]); });
  run_stream(*sessions[0], 0, shared, ready, result.streams[0], ends[0]);
  for (std::thread& t : threads) t.join();
  if (shared.error) std::rethrow_exception(shared.error);
  Clock::time_point last = shared.start;
  for (const Clock::time_point& e : ends) last = std::max(last, e);
  result.wall_ms = std::chrono::duration<double, std::milli>(last - shared.start).count();
  return result;
}

}  // namespace strata::runtime
