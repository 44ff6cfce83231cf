// The view options of `strata profile` and `strata report` (and the node filters of `strata diff`)
// on a CLI11 subcommand.
#pragma once

#include <CLI/CLI.hpp>

#include "strata/views.h"

namespace strata::cli {

// --top, --type, --min-time, --name: which nodes a table shows.
void add_node_filter_options(CLI::App* sub, ViewOptions& options);

// --columns and --wide; the tables fit stdout's width when it is a terminal, and warnings are in
// colour there (unless NO_COLOR).
void add_fit_options(CLI::App* sub, ViewOptions& options);

// The filters plus --by (node,type,scope,all), --order-by, --depth and the fit options.
void add_view_options(CLI::App* sub, ViewOptions& options);

}  // namespace strata::cli
