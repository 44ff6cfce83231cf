// What the tables of a profile show (strata::Profile::render, `strata profile` and `strata
// report`): which views, which nodes, in which order, and how they meet the screen.
//
//   strata::ViewOptions view;
//   view.views = {strata::View::kNodes, strata::View::kScopes};
//   view.order_by = strata::OrderBy::kFlops;
//   view.top = 5;
//   std::fputs(strata::Profile::load("p.json").render(view).c_str(), stdout);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "strata/table.h"

namespace strata {

enum class View { kNodes, kTypes, kScopes };

enum class OrderBy { kTime, kFlops, kBytes, kGflops, kBandwidth, kAllocs };

struct ViewOptions {
  std::vector<View> views = {View::kNodes, View::kTypes};  // after the summary block
  int top = 20;                                            // node rows shown (0: all)
  OrderBy order_by = OrderBy::kTime;
  // Filters, applied to the nodes before every view (tables, types, scopes):
  std::vector<std::string> types;  // keep these op types only (empty: all)
  double min_time_ms = 0;          // keep nodes whose median time is at least this
  std::string name_regex;          // keep nodes whose name contains a match (ECMAScript)
  int depth = 0;                   // scope tree: deepest level shown (0: all)
  // How the tables meet the screen (the CLI sets these for a terminal):
  size_t width = 0;                  // fit the tables to this many columns (0: every column)
  std::vector<std::string> columns;  // only these (column_key names) besides names
  bool wide = false;                 // every column even when width is set
  bool colour = false;               // warnings of the summary in colour
};

// Throws strata::Error naming a ViewOptions::columns name that no table of a profile has.
void check_view_columns(const std::vector<std::string>& columns);

// The table fitting `view` asks for: its width unless `wide`, its columns.
FitOptions fit_options(const ViewOptions& view);

// "time", "flops", "bytes", "gflops", "bandwidth", "allocs".
const char* order_by_name(OrderBy order);

// The terminal text is written to: the width to fit for `fd` (1: stdout, 2: stderr; 0 when it
// is not a terminal, else COLUMNS or the terminal's width) and whether colour is wanted there
// (a terminal, NO_COLOR unset).
size_t terminal_width(int fd);
bool use_colour(int fd);

}  // namespace strata
