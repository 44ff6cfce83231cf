#include "report/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace strata::report {

bool is_terminal(int fd) {
  return isatty(fd) == 1;
}

std::string warning_style(const std::string& text, bool colour) {
  return colour ? "\033[1;33m" + text + "\033[0m" : text;
}

}  // namespace strata::report

// Declared in include/strata/views.h (the report layer uses them through report/terminal.h).
namespace strata {

namespace {
constexpr size_t kDefaultWidth = 80;
constexpr size_t kMaxWidth = 10000;  // a COLUMNS beyond this is a mistake, not a terminal
}  // namespace

size_t terminal_width(int fd) {
  if (!report::is_terminal(fd)) return 0;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0 && size_t(value) <= kMaxWidth)
      return size_t(value);
  }
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kDefaultWidth;
}

bool use_colour(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  return report::is_terminal(fd);
}

}  // namespace strata
