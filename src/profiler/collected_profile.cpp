#include "profiler/collected_profile.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "profiler/alloc_counter.h"
#include "profiler/step_description.h"

namespace strata::profiler {

namespace {

double ms_between(int64_t from_ns, int64_t to_ns) {
  return double(to_ns - from_ns) * 1e-6;
}

// Per-call allocations of a row: the most seen in one execution (they rarely vary; when they do,
// the worst execution is the one to know about).
void add_allocations(NodeProfile& row, int64_t allocations, int64_t bytes) {
  row.heap_allocations = std::max(row.heap_allocations, allocations);
  row.heap_bytes = std::max(row.heap_bytes, bytes);
}

void add_scopes(Profile& profile, const Collector& collector) {
  std::map<std::string, size_t> row_of_path;
  for (const ScopeEvent& e : collector.scopes()) {
    auto [it, inserted] = row_of_path.try_emplace(e.path, profile.nodes.size());
    if (inserted) {
      NodeProfile row;
      row.name = e.path;
      row.op_type = "scope";
      row.thread = e.thread;
      profile.nodes.push_back(std::move(row));
    }
    NodeProfile& row = profile.nodes[it->second];
    row.samples_ms.push_back(ms_between(e.start_ns, e.end_ns));
    row.start_offsets_ms.push_back(ms_between(collector.origin_ns(), e.start_ns));
    add_allocations(row, e.heap_allocations, e.heap_bytes);
  }
}

}  // namespace

Profile collected_profile(const runtime::Session& session, const Collector& collector) {
  if (collector.num_steps() != session.steps().size())
    fail_internal("the collector was sized for {} steps, the session has {}", collector.num_steps(),
                  session.steps().size());
  Profile profile;
  profile.heap_counted = heap_counting_enabled();
  profile.process_cpu_pct = profile.system_cpu_pct = -1;  // not measured here
  const size_t runs = collector.num_runs();
  for (size_t r = 0; r < runs; ++r) {
    profile.iterations_ms.push_back(ms_between(collector.run_start_ns(r), collector.run_end_ns(r)));
    profile.iteration_starts_ms.push_back(
        ms_between(collector.origin_ns(), collector.run_start_ns(r)));
  }
  if (runs > 0) {
    profile.nodes = describe_steps(session);
    for (size_t s = 0; s < profile.nodes.size(); ++s) {
      NodeProfile& row = profile.nodes[s];
      row.thread = collector.event(0, s).thread;
      for (size_t r = 0; r < runs; ++r) {
        const NodeEvent e = collector.event(r, s);
        row.samples_ms.push_back(ms_between(e.start_ns, e.end_ns));
        row.start_offsets_ms.push_back(ms_between(collector.run_start_ns(r), e.start_ns));
        add_allocations(row, e.heap_allocations, e.heap_bytes);
      }
    }
  }
  add_scopes(profile, collector);
  return profile;
}

}  // namespace strata::profiler
