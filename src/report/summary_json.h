// The JSON form of a timing summary, shared by `strata run --json` and the profile file so that
// `latency_ms` means the same thing in both.
#pragma once

#include <nlohmann/json.hpp>

#include "profiler/stats.h"

namespace strata::report {

// {"min", "median", "mean", "sd", "p90", "p99", "max", "cv"}: times in the samples' unit, cv a
// ratio (sd / mean).
nlohmann::json summary_json(const profiler::Summary& s);

}  // namespace strata::report
