// The measurement procedure of `strata profile`: one cold run, warm-up runs, then profiled runs
// interleaved with unprofiled ones so the profiler can state its own overhead, then optionally
// every node timed alone. docs/profiling.md explains the method.
#pragma once

#include <vector>

#include "core/progress.h"
#include "profiler/overhead.h"
#include "profiler/profile.h"
#include "runtime/session.h"

namespace strata::profiler {

struct ProfileRunOptions {
  int warmup = 1;       // runs after the first one, not recorded
  int iterations = 20;  // profiled runs, and as many unprofiled ones
  // Above 0: profiled/unprofiled pairs run until this many seconds have passed instead of
  // `iterations` (at least one pair; at most four times what the warm-up's pace fits, and within
  // the event buffers' limit).
  double duration_seconds = 0;
  bool isolate = false;
  int isolate_repeats = 10;
  // Told after each run ("first run", "warm-up", "iterations") and, with isolate, after each
  // node's repetitions ("isolation"): between timed regions, never inside one.
  ProgressFn progress;
};

// Profiles a prepared session that has not run yet:
//  1. the first (cold) run, timed per node: first_iteration_ms and each node's first_run_ms;
//  2. `warmup` runs, not recorded;
//  3. `iterations` profiled runs alternating with `iterations` unprofiled ones, in the order
//     PU UP PU UP ... so that a drift of the machine weighs on both alike; overhead_pct compares
//     each profiled run with the unprofiled run next to it. CPU utilisation (process and system)
//     is read over this phase;
//  4. with `isolate`, one more run in which each node is re-timed alone (isolated_medians).
// Fills the measured fields and the rows; model, machine, options and load/prepare times are the
// caller's.
Profile profile_session(runtime::Session& session, const std::vector<const Tensor*>& inputs,
                        const ProfileRunOptions& options);
// The same over several input sets (strata profile --input DIR), round-robin: iteration i (its
// profiled and its unprofiled run alike) and warm-up run i use set i % count; the first run and
// the isolation use set 0.
Profile profile_session(runtime::Session& session,
                        const std::vector<std::vector<const Tensor*>>& input_sets,
                        const ProfileRunOptions& options);

}  // namespace strata::profiler
