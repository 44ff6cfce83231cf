// Turns what a Collector recorded into the rows of a Profile.
#pragma once

#include "profiler/collector.h"
#include "profiler/profile.h"
#include "runtime/session.h"

namespace strata::profiler {

// A profile of the collector's runs of `session` (at least one): one row per step with its
// description (describe_steps) and a sample per run, then one row per user scope path in the
// order scopes first closed. Fills iterations_ms, iteration_starts_ms, heap_counted and nodes,
// marks CPU utilisation unknown (-1); the other fields are left for the caller.
// A node running subgraphs gets its own time (Collector's body time taken out) and body_ms.
Profile collected_profile(const runtime::Session& session, const Collector& collector);

// Adds the rows of the nodes inside subgraphs that `timed` saw (Collector::body_rows), each after
// the row of the node running it, with first_run_ms from `cold` (the collector of the first run).
// Call once the profile's other rows are complete: rows after the steps' rows move.
void add_body_rows(Profile& profile, const Collector& timed, const Collector& cold);

}  // namespace strata::profiler
