// A measured profile as a versioned JSON file (docs/profile-format.md), written by
// `strata profile -o` and read back by `strata report` and `strata diff`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "profiler/profile.h"

namespace strata::report {

// The profile with its derived figures (statistics, GFLOP/s, roofline bound...) added for readers
// that do not want to recompute them. Derived fields are ignored when reading back.
nlohmann::json profile_to_json(const profiler::Profile& profile);

// Validates and converts; a missing, mistyped or out-of-range field fails (exit 2) naming the field
// ("nodes[3].samples_ms"), and so does a schema_version this build does not read.
profiler::Profile profile_from_json(const nlohmann::json& json);

// Writes the file (fails naming the path when it cannot be written).
void write_profile(const profiler::Profile& profile, const std::string& path);

// Reads a profile file; every error names the path first.
profiler::Profile read_profile(const std::string& path);

}  // namespace strata::report
