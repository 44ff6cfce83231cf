// Timing each node alone: during one run, right after a node has run in sequence, its kernel is
// run again on the same inputs (now warm in cache), `repeats` times, and the median kept. Set
// beside the in-sequence median it shows what timing statements one by one would claim, and why
// that differs from timing the whole (warm caches, no neighbours evicting data).
#pragma once

#include <vector>

#include "core/progress.h"
#include "runtime/session.h"

namespace strata::profiler {

// Median time (ms) of each step run alone, per step. One untimed repetition first, so every
// timed one finds the node's data in cache. Steps that run in place (their output overwrites an
// input) cannot be re-run on the same inputs: -1 for them. The session's outputs afterwards are
// those of a normal run (re-running a deterministic step rewrites the same values).
// `progress` ("isolation", steps done of all) is told after each step's repetitions.
std::vector<double> isolated_medians(runtime::Session& session,
                                     const std::vector<const Tensor*>& inputs, int repeats,
                                     const ProgressFn& progress = nullptr);

}  // namespace strata::profiler
