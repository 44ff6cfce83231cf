#include <strata/scoped_timer.h>

#include <string>

#include "profiler/alloc_counter.h"
#include "profiler/collector.h"

namespace strata {

namespace {
// The open scopes of this thread, joined with '/'.
thread_local std::string t_scope_path;
// Room for typical nesting up front, so that a child's name rarely allocates inside its parent's
// measured window.
constexpr size_t kReservedPath = 256;
}  // namespace

ScopedTimer::ScopedTimer(std::string_view name) : collector_(profiler::Collector::active()) {
  if (!collector_) return;
  if (t_scope_path.capacity() < kReservedPath) t_scope_path.reserve(kReservedPath);
  parent_length_ = t_scope_path.size();
  if (!t_scope_path.empty()) t_scope_path += '/';
  t_scope_path += name;
  const profiler::HeapCount heap = profiler::heap_count();
  start_allocations_ = heap.allocations;
  start_bytes_ = heap.bytes;
  start_ticks_ = profiler::ticks();
}

ScopedTimer::~ScopedTimer() {
  if (!collector_) return;
  const int64_t end_ticks = profiler::ticks();
  const profiler::HeapCount heap = profiler::heap_count();
  std::string path = t_scope_path;
  t_scope_path.resize(parent_length_);
  profiler::Collector::record_scope(
      collector_, std::move(path), start_ticks_, end_ticks,
      {heap.allocations - start_allocations_, heap.bytes - start_bytes_},
      profiler::current_thread_id());
}

}  // namespace strata
