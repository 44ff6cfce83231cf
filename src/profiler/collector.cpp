#include "profiler/collector.h"

#include <unistd.h>

#include <atomic>

#include "core/error.h"

namespace strata::profiler {

namespace {

constexpr size_t kReservedScopes = 1024;  // recording more only costs a reallocation

std::atomic<Collector*> g_active{nullptr};
// Guards g_active's changes against scopes recording into a collector being deactivated.
std::mutex g_active_mutex;

}  // namespace

int current_thread_id() {
  thread_local int id = 0;
  if (id == 0) id = int(gettid());
  return id;
}

Collector::Collector(size_t num_steps, size_t max_runs)
    : num_steps_(num_steps),
      max_runs_(max_runs),
      events_(num_steps * max_runs),
      run_spans_(2 * max_runs),
      origin_ticks_(ticks()) {
  scopes_.reserve(kReservedScopes);
}

Collector::~Collector() {
  deactivate();
}

void Collector::begin_run() {
  if (runs_ == max_runs_)
    fail_internal("the profiler was sized for {} runs; a run more was started", max_runs_);
  current_ = &events_[runs_ * num_steps_];
  run_spans_[2 * runs_] = ticks();
}

void Collector::end_run() {
  if (!current_) fail_internal("Collector::end_run without begin_run");
  run_spans_[2 * runs_ + 1] = ticks();
  current_ = nullptr;
  ++runs_;
}

// The clock is read last on entry and first on exit, so the node's time excludes the hook.
void Collector::before_node(size_t step) {
  if (!current_) return;
  RawEvent& e = current_[step];
  e.thread = current_thread_id();
  const HeapCount heap = heap_count();
  e.heap_allocations = heap.allocations;
  e.heap_bytes = heap.bytes;
  e.start = ticks();
}

void Collector::after_node(size_t step) {
  if (!current_) return;
  RawEvent& e = current_[step];
  e.end = ticks();
  const HeapCount heap = heap_count();
  e.heap_allocations = heap.allocations - e.heap_allocations;
  e.heap_bytes = heap.bytes - e.heap_bytes;
}

void Collector::activate() {
  std::lock_guard lock(g_active_mutex);
  g_active.store(this, std::memory_order_release);
}

void Collector::deactivate() {
  std::lock_guard lock(g_active_mutex);
  if (g_active.load(std::memory_order_relaxed) == this)
    g_active.store(nullptr, std::memory_order_release);
}

NodeEvent Collector::event(size_t run, size_t step) const {
  const RawEvent& raw = events_[run * num_steps_ + step];
  return {ticks_to_ns(raw.start), ticks_to_ns(raw.end), raw.heap_allocations, raw.heap_bytes,
          raw.thread};
}

std::vector<ScopeEvent> Collector::scopes() const {
  std::lock_guard lock(scopes_mutex_);
  std::vector<ScopeEvent> out;
  out.reserve(scopes_.size());
  for (const RawScope& raw : scopes_)
    out.push_back({raw.path, ticks_to_ns(raw.start), ticks_to_ns(raw.end), raw.heap.allocations,
                   raw.heap.bytes, raw.thread});
  return out;
}

Collector* Collector::active() {
  return g_active.load(std::memory_order_acquire);
}

void Collector::record_scope(Collector* collector, std::string path, int64_t start_ticks,
                             int64_t end_ticks, HeapCount heap, int thread) {
  std::lock_guard lock(g_active_mutex);
  if (g_active.load(std::memory_order_relaxed) != collector) return;
  std::lock_guard scopes_lock(collector->scopes_mutex_);
  collector->scopes_.push_back({std::move(path), start_ticks, end_ticks, heap, thread});
}

}  // namespace strata::profiler
