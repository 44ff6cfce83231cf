#include "command_output.h"

#include <fmt/format.h>

#include "report/progress.h"
#include "report/terminal.h"

namespace strata::cli {

WarningSink print_warnings(std::vector<std::string>* kept) {
  return [kept](const std::string& warning) {
    report::stderr_progress().hide();  // the warning goes above the progress line
    fmt::print(stderr, "{} {}\n", report::warning_style("strata: warning:", report::use_colour(2)),
               warning);
    if (kept) kept->push_back(warning);
  };
}

void clear_progress_line() {
  report::stderr_progress().clear();
}

}  // namespace strata::cli
