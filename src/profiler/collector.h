// Event collection: a RunHooks that records, for every node of every run it sees, when it started
// and ended, on which thread, and the heap allocations made meanwhile; plus the user scopes
// (strata::ScopedTimer) closed while it is active. Buffers are sized up front, so the hooks only
// read the clock and the allocation counter and store: no allocation, no lock, no branch on data.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "profiler/alloc_counter.h"
#include "profiler/profile.h"
#include "profiler/tick_clock.h"
#include "runtime/body_hooks.h"
#include "runtime/session.h"

namespace strata::profiler {

// The calling thread's operating-system id (what trace viewers show), cached per thread.
int current_thread_id();

// One execution of one step; times in steady-clock nanoseconds (now_ns()). body_ns: the part of
// it its subgraphs' nodes took (0 for nodes without subgraphs).
struct NodeEvent {
  int64_t start_ns = 0, end_ns = 0, body_ns = 0;
  int64_t heap_allocations = 0, heap_bytes = 0;
  int thread = 0;
};

// One closed user scope; `path` joins the names of the open scopes with '/'. Times as NodeEvent.
struct ScopeEvent {
  std::string path;
  int64_t start_ns = 0, end_ns = 0;
  int64_t heap_allocations = 0, heap_bytes = 0;
  int thread = 0;
};

class Collector : public runtime::RunHooks, public runtime::BodyHooks {
 public:
  // Room for `max_runs` runs of a session with `num_steps` steps.
  Collector(size_t num_steps, size_t max_runs);
  ~Collector() override;
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Bracket each run to record (Session::set_hooks(&collector) must be in place). Runs past
  // max_runs fail (an internal error: the caller sized the collector).
  void begin_run();
  void end_run();
  // Room for `runs` more runs, allocated now; only between runs (a run's rows do not move).
  void add_room(size_t runs);
  void before_node(size_t step) override;
  void after_node(size_t step) override;
  // Subgraphs: the collector observes their nodes too, as rows named PARENT/LABEL/NODE. Only
  // models with control flow pay for this (a map lookup per body node call).
  runtime::RunHooks* begin_body(size_t step, const ir::Node& node, const char* label,
                                const runtime::Session& body) override;
  void end_body() override;

  // One call of a node inside a subgraph, in ticks() readings (body: ticks its own subgraphs'
  // nodes took), in the run `run`, with the types of shape_sets[shape_set] of its row.
  struct BodyCall {
    size_t run = 0;
    int64_t start = 0, end = 0, body = 0;
    int64_t heap_allocations = 0, heap_bytes = 0;
    int thread = 0;
    int shape_set = 0;
  };
  // A node inside a subgraph, over all its calls: `name` PARENT/LABEL/NODE, `parent` the name of
  // the row running the subgraph, one description (describe_step) per distinct set of input and
  // output types, the calls in order.
  struct BodyRow {
    std::string name, parent;
    std::vector<NodeProfile> shape_sets;
    std::map<std::vector<int64_t>, int> set_of_key;
    std::vector<BodyCall> calls;
  };
  const std::vector<BodyRow>& body_rows() const { return body_rows_; }

  size_t num_steps() const { return num_steps_; }
  size_t num_runs() const { return runs_; }
  NodeEvent event(size_t run, size_t step) const;
  int64_t run_start_ns(size_t run) const { return ticks_to_ns(run_spans_[2 * run]); }
  int64_t run_end_ns(size_t run) const { return ticks_to_ns(run_spans_[2 * run + 1]); }
  // When the collector was created: the time origin of its profile.
  int64_t origin_ns() const { return ticks_to_ns(origin_ticks_); }

  // Makes this the collector that ScopedTimer records into (one per process; a second activation
  // replaces the first). The destructor deactivates.
  void activate();
  void deactivate();
  // The user scopes recorded so far, in the order they closed.
  std::vector<ScopeEvent> scopes() const;

  // For ScopedTimer: the active collector (nullptr when none), and recording into it. The event is
  // dropped when `collector` is no longer the active one (deactivated while the scope was open).
  static Collector* active();
  // Times are ticks() readings; `heap` counts the allocations made within the scope.
  static void record_scope(Collector* collector, std::string path, int64_t start_ticks,
                           int64_t end_ticks, HeapCount heap, int thread);

 private:
  // What the hooks store: times in ticks, allocations as counter readings until the node ends.
  struct RawEvent {
    int64_t start = 0, end = 0, body = 0;
    int64_t heap_allocations = 0, heap_bytes = 0;
    int thread = 0;
  };
  struct RawScope {
    std::string path;
    int64_t start = 0, end = 0;
    HeapCount heap;
    int thread = 0;
  };

  size_t num_steps_;
  size_t max_runs_;
  size_t runs_ = 0;
  std::vector<RawEvent> events_;    // max_runs × num_steps, run-major
  std::vector<int64_t> run_spans_;  // start, end ticks per run
  RawEvent* current_ = nullptr;     // the running run's row; nullptr outside begin/end_run
  RawEvent* row_ = nullptr;  // where the hooks write: current_, or the innermost body's events
  // A subgraph running now: the events of its session's steps, and where its time goes.
  struct Frame {
    std::string parent;  // row name of the node running it
    std::string path;    // its nodes' row names start with this: "PARENT/LABEL/"
    const runtime::Session* body = nullptr;
    RawEvent* parent_event = nullptr;
    std::vector<RawEvent> events;
  };
  std::vector<Frame> frames_;  // [0, depth_) are open; kept to reuse their buffers
  size_t depth_ = 0;
  std::vector<BodyRow> body_rows_;
  std::map<std::string, size_t> body_row_of_;
  std::string name_scratch_;
  std::vector<int64_t> key_scratch_;
  void record_body_call(const Frame& frame, size_t step);
  int64_t origin_ticks_;
  mutable std::mutex scopes_mutex_;
  std::vector<RawScope> scopes_;
};

// Sets a session's hooks for its lifetime, and clears them even when a run throws.
class AttachedHooks {
 public:
  AttachedHooks(runtime::Session& session, runtime::RunHooks* hooks) : session_(session) {
    session_.set_hooks(hooks);
  }
  ~AttachedHooks() { session_.set_hooks(nullptr); }
  AttachedHooks(const AttachedHooks&) = delete;
  AttachedHooks& operator=(const AttachedHooks&) = delete;

 private:
  runtime::Session& session_;
};

}  // namespace strata::profiler
