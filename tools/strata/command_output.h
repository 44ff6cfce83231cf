// What the commands share besides their tables: how warnings are printed and kept, and the JSON
// report file.
#pragma once

#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace strata::cli {

using WarningSink = std::function<void(const std::string&)>;

// Prints each warning to stderr as "strata: warning: ..."; also appends it to `kept` (for the JSON
// report) when given.
WarningSink print_warnings(std::vector<std::string>* kept = nullptr);

// Opens the --json report file before any work, so an unwritable path fails at once rather than
// after minutes of runs. Returns a closed stream when `path` is empty.
std::ofstream open_report_file(const std::string& path);

}  // namespace strata::cli
