// What the command line needs to know about the terminal it writes to: whether a stream is one,
// how wide it is, and whether colour is wanted. Files and pipes are not terminals: they get plain
// text with every column.
#pragma once

#include <cstddef>
#include <string>

#include "strata/views.h"

namespace strata::report {

// True when `fd` (1: stdout, 2: stderr) is a terminal.
bool is_terminal(int fd);

// The width to fit text written to `fd`: 0 (no limit) when it is not a terminal; else COLUMNS
// when set to a number, else the terminal's own width (TIOCGWINSZ), else 80. Colour on `fd`: only
// on a terminal, and never when NO_COLOR is set (https://no-color.org). Public (strata/views.h).
using strata::terminal_width;
using strata::use_colour;

// `text` in bold yellow when `colour`, else as it is.
std::string warning_style(const std::string& text, bool colour);

}  // namespace strata::report
