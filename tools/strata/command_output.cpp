#include "command_output.h"

#include <fmt/format.h>

namespace strata::cli {

WarningSink print_warnings(std::vector<std::string>* kept) {
  return [kept](const std::string& warning) {
    fmt::print(stderr, "strata: warning: {}\n", warning);
    if (kept) kept->push_back(warning);
  };
}

}  // namespace strata::cli
