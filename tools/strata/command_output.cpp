#include "command_output.h"

#include <fmt/format.h>
#include <strata/strata.h>

namespace strata::cli {

WarningSink print_warnings(std::vector<std::string>* kept) {
  return [kept](const std::string& warning) {
    fmt::print(stderr, "strata: warning: {}\n", warning);
    if (kept) kept->push_back(warning);
  };
}

std::ofstream open_report_file(const std::string& path) {
  std::ofstream out;
  if (path.empty()) return out;
  out.open(path);
  if (!out) fail("{}: cannot be written", path);
  return out;
}

}  // namespace strata::cli
