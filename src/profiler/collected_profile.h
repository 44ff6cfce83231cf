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
Profile collected_profile(const runtime::Session& session, const Collector& collector);

}  // namespace strata::profiler
