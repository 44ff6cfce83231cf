#include "command_output.h"

#include "strata/progress.h"

namespace strata::cli {

WarningSink print_warnings(std::vector<std::string>* kept) {
  return [kept](const std::string& warning) {
    print_warning(warning);
    if (kept) kept->push_back(warning);
  };
}

void clear_progress_line() {
  clear_terminal_progress();
}

}  // namespace strata::cli
