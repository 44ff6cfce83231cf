// A measured profile as a Chrome trace (the Trace Event Format read by Perfetto and
// chrome://tracing): one complete event per node per timed iteration, an event per iteration
// around them, and the user scopes, on the threads that ran them. docs/profile-format.md ("Trace")
// describes the events and their args.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "profiler/profile.h"

namespace strata::report {

nlohmann::json chrome_trace(const profiler::Profile& profile);

// Writes chrome_trace(profile) to `path`; fails (exit 2) naming the path when it cannot.
void write_chrome_trace(const profiler::Profile& profile, const std::string& path);

}  // namespace strata::report
