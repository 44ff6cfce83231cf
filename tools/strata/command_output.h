// What the commands share besides their tables: how warnings are printed and kept.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace strata::cli {

using WarningSink = std::function<void(const std::string&)>;

// Prints each warning to stderr as "strata: warning: ..." (the label in colour on a terminal,
// unless NO_COLOR is set), erasing the progress line first; also appends it to `kept` (for the JSON
// report) when given.
WarningSink print_warnings(std::vector<std::string>* kept = nullptr);

// Erases the progress line left on the terminal (before an error line replaces it).
void clear_progress_line();

}  // namespace strata::cli
