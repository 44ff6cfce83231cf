// The record of what a profile was measured on and with: strata's version, the model file and its
// SHA-256, the time (UTC) and the libraries strata was built with.
#pragma once

#include <string>

#include "profiler/profile.h"

namespace strata::profiler {

// Fills strata_version, model, model_sha256, created and libraries. Fails (exit 2) naming the
// model path when it cannot be read.
void stamp_profile(Profile& profile, const std::string& model_path);

// Now, as ISO 8601 UTC ("2024-05-01T12:00:00Z").
std::string utc_now_iso8601();

}  // namespace strata::profiler
