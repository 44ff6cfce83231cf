// Files strata writes (profiles, traces, reports, dumps) are written atomically; a command that
// writes one after long work checks first that it can:
//
//   strata::check_writable("out/report.html");  // throws now, not after minutes of profiling
#pragma once

#include <string>

namespace strata {

// Throws strata::Error with the system's reason, naming `path`, when a file cannot be created
// there (checked by creating and removing a temporary file beside it); leaves nothing behind.
void check_writable(const std::string& path);

}  // namespace strata
