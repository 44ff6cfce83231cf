#include "profiler/collected_profile.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "profiler/alloc_counter.h"
#include "profiler/shape_range.h"
#include "profiler/step_description.h"
#include "profiler/tick_clock.h"

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

int64_t body_ns(const Collector::BodyCall& c) {
  return c.body ? ticks_to_ns(c.start + c.body) - ticks_to_ns(c.start) : 0;
}

// A body call's own time in ms: without its own subgraphs' nodes.
// On the clock of the rest of the profile (ticks_to_ns), so that a call's event lies within its
// parent's.
double own_ms(const Collector::BodyCall& c) {
  return ms_between(ticks_to_ns(c.start), ticks_to_ns(c.end) - body_ns(c));
}

// The row of a node inside a subgraph, over the collector's runs.
NodeProfile body_row(const Collector::BodyRow& r, const Collector& collector) {
  NodeProfile row = r.shape_sets.at(0);
  row.name = r.name;
  row.parent = r.parent;
  row.macs = row.flops = row.bytes_read = row.bytes_written = 0;
  row.arena_bytes = 0;
  row.heap_allocations = row.heap_bytes = 0;
  row.thread = r.calls.at(0).thread;
  const size_t runs = collector.num_runs();
  row.samples_ms.assign(runs, 0.0);
  row.calls_per_iteration.assign(runs, 0);
  row.start_offsets_ms.assign(runs, 0.0);
  const bool nested = std::any_of(r.calls.begin(), r.calls.end(),
                                  [](const Collector::BodyCall& c) { return c.body > 0; });
  if (nested) row.body_ms.assign(runs, 0.0);
  for (const Collector::BodyCall& c : r.calls) {
    const double own = own_ms(c);
    const double offset = ms_between(collector.run_start_ns(c.run), ticks_to_ns(c.start));
    if (row.calls_per_iteration[c.run]++ == 0) row.start_offsets_ms[c.run] = offset;
    row.samples_ms[c.run] += own;
    row.call_ms.push_back(own);
    row.call_offsets_ms.push_back(offset);
    if (nested) {
      const double body = double(body_ns(c)) * 1e-6;
      row.call_body_ms.push_back(body);
      row.body_ms[c.run] += body;
    }
    row.call_shapes.push_back(c.shape_set);
    const NodeProfile& set = r.shape_sets[size_t(c.shape_set)];
    // Cost per inference: every call's, averaged over the runs below.
    row.macs += set.macs;
    row.flops += set.flops;
    row.bytes_read += set.bytes_read;
    row.bytes_written += set.bytes_written;
    row.arena_bytes = std::max(row.arena_bytes, set.arena_bytes);
    add_allocations(row, c.heap_allocations, c.heap_bytes);
  }
  for (double* figure : {&row.macs, &row.flops, &row.bytes_read, &row.bytes_written})
    *figure /= double(std::max<size_t>(runs, 1));
  std::vector<std::vector<std::string>> inputs(row.input_shapes.size()),
      outputs(row.output_shapes.size());
  for (const NodeProfile& set : r.shape_sets) {
    row.shape_sets.push_back({set.input_shapes, set.output_shapes});
    for (size_t i = 0; i < inputs.size() && i < set.input_shapes.size(); ++i)
      inputs[i].push_back(set.input_shapes[i]);
    for (size_t j = 0; j < outputs.size() && j < set.output_shapes.size(); ++j)
      outputs[j].push_back(set.output_shapes[j]);
  }
  for (size_t i = 0; i < inputs.size(); ++i) row.input_shapes[i] = shape_range(inputs[i]);
  for (size_t j = 0; j < outputs.size(); ++j) row.output_shapes[j] = shape_range(outputs[j]);
  return row;
}

// Appends `row` and, after it, the rows of the nodes in its subgraphs (recursively).
void emit_with_children(NodeProfile row, std::vector<NodeProfile>& body,
                        const std::multimap<std::string, size_t>& children_of,
                        std::vector<NodeProfile>& out) {
  const std::string name = row.name;
  out.push_back(std::move(row));
  const auto [from, to] = children_of.equal_range(name);
  for (auto it = from; it != to; ++it)
    emit_with_children(std::move(body[it->second]), body, children_of, out);
}

}  // namespace

void add_body_rows(Profile& profile, const Collector& timed, const Collector& cold) {
  if (timed.body_rows().empty()) return;
  std::vector<NodeProfile> body;
  std::map<std::string, size_t> body_index;
  std::multimap<std::string, size_t> children_of;
  for (const Collector::BodyRow& r : timed.body_rows()) {
    body_index[r.name] = body.size();
    children_of.emplace(r.parent, body.size());
    body.push_back(body_row(r, timed));
  }
  for (const Collector::BodyRow& r : cold.body_rows()) {
    auto it = body_index.find(r.name);
    if (it == body_index.end()) continue;
    for (const Collector::BodyCall& c : r.calls) body[it->second].first_run_ms += own_ms(c);
  }
  std::vector<NodeProfile> nodes;
  nodes.reserve(profile.nodes.size() + body.size());
  for (NodeProfile& row : profile.nodes) {
    // Timed alone, a node with subgraphs runs its bodies too: not comparable with its own time.
    if (!row.body_ms.empty()) row.isolated_median_ms = -1;
    emit_with_children(std::move(row), body, children_of, nodes);
  }
  profile.nodes = std::move(nodes);
}

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
      bool has_body = false;
      for (size_t r = 0; r < runs; ++r) has_body |= collector.event(r, s).body_ns > 0;
      for (size_t r = 0; r < runs; ++r) {
        const NodeEvent e = collector.event(r, s);
        // A node with subgraphs keeps its own time; its bodies' nodes have rows of their own.
        row.samples_ms.push_back(ms_between(e.start_ns, e.end_ns - e.body_ns));
        if (has_body) row.body_ms.push_back(double(e.body_ns) * 1e-6);
        row.start_offsets_ms.push_back(ms_between(collector.run_start_ns(r), e.start_ns));
        add_allocations(row, e.heap_allocations, e.heap_bytes);
      }
    }
  }
  add_scopes(profile, collector);
  return profile;
}

}  // namespace strata::profiler
