#include "profiler/collector.h"

#include <unistd.h>

#include <atomic>

#include "core/error.h"
#include "profiler/step_description.h"

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
  current_ = row_ = &events_[runs_ * num_steps_];
  depth_ = 0;
  run_spans_[2 * runs_] = ticks();
}

void Collector::add_room(size_t runs) {
  if (current_) fail_internal("Collector::add_room during a run");
  max_runs_ += runs;
  events_.resize(num_steps_ * max_runs_);
  run_spans_.resize(2 * max_runs_);
}

void Collector::end_run() {
  if (!current_) fail_internal("Collector::end_run without begin_run");
  run_spans_[2 * runs_ + 1] = ticks();
  current_ = row_ = nullptr;
  ++runs_;
}

// The clock is read last on entry and first on exit, so the node's time excludes the hook.
void Collector::before_node(size_t step) {
  if (!row_) return;
  RawEvent& e = row_[step];
  e.thread = current_thread_id();
  const HeapCount heap = heap_count();
  e.heap_allocations = heap.allocations;
  e.heap_bytes = heap.bytes;
  e.start = ticks();
}

void Collector::after_node(size_t step) {
  if (!row_) return;
  RawEvent& e = row_[step];
  e.end = ticks();
  const HeapCount heap = heap_count();
  e.heap_allocations = heap.allocations - e.heap_allocations;
  e.heap_bytes = heap.bytes - e.heap_bytes;
}

runtime::RunHooks* Collector::begin_body(size_t step, const ir::Node& node, const char* label,
                                         const runtime::Session& body) {
  if (!row_) return nullptr;
  RawEvent* parent_event = &row_[step];
  if (depth_ == frames_.size()) frames_.emplace_back();
  Frame& f = frames_[depth_];
  f.parent = depth_ > 0 ? frames_[depth_ - 1].path + node.name : node.name;
  f.path = f.parent + "/" + label + "/";
  f.body = &body;
  f.parent_event = parent_event;
  f.events.assign(body.steps().size(), RawEvent{});
  ++depth_;
  row_ = f.events.data();
  return this;
}

void Collector::end_body() {
  if (depth_ == 0) return;
  const Frame& f = frames_[depth_ - 1];
  int64_t body_ticks = 0;
  for (size_t s = 0; s < f.events.size(); ++s) {
    if (f.events[s].end == 0) continue;  // not reached (the body failed)
    body_ticks += f.events[s].end - f.events[s].start;
    record_body_call(f, s);
  }
  f.parent_event->body += body_ticks;
  --depth_;
  row_ = depth_ > 0 ? frames_[depth_ - 1].events.data() : current_;
}

void Collector::record_body_call(const Frame& frame, size_t step) {
  const runtime::Session& body = *frame.body;
  const ir::Node& node = body.graph().nodes[body.steps()[step].node_index];
  name_scratch_.assign(frame.path).append(node.name);
  auto [it, inserted] = body_row_of_.try_emplace(name_scratch_, body_rows_.size());
  if (inserted) {
    BodyRow row;
    row.name = name_scratch_;
    row.parent = frame.parent;
    body_rows_.push_back(std::move(row));
  }
  BodyRow& row = body_rows_[it->second];
  // The call's types as numbers; a new combination is described (shapes and cost) once.
  key_scratch_.clear();
  const auto add_key = [&](const Tensor* t) {
    if (!t || !t->defined()) return key_scratch_.push_back(-1);
    key_scratch_.push_back(int64_t(t->dtype()) * 4 + int64_t(t->kind()));
    key_scratch_.push_back(t->rank());
    if (t->is_tensor())
      key_scratch_.insert(key_scratch_.end(), t->shape().begin(), t->shape().end());
  };
  for (const Tensor* t : body.step_inputs(step)) add_key(t);
  for (const Tensor* t : body.step_outputs(step)) add_key(t);
  auto [set, new_set] = row.set_of_key.try_emplace(key_scratch_, int(row.shape_sets.size()));
  if (new_set) row.shape_sets.push_back(describe_step(body, step));
  const RawEvent& e = frame.events[step];
  row.calls.push_back(
      {runs_, e.start, e.end, e.body, e.heap_allocations, e.heap_bytes, e.thread, set->second});
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
  const int64_t start = ticks_to_ns(raw.start);
  return {start,
          ticks_to_ns(raw.end),
          raw.body ? ticks_to_ns(raw.start + raw.body) - start : 0,
          raw.heap_allocations,
          raw.heap_bytes,
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
