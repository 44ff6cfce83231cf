// What the tables of a profile show: which views, which nodes, in which order. Filled by the CLI
// (tools/strata/view_cli.h) for both `strata profile` and `strata report`.
#pragma once

#include "strata/views.h"

namespace strata::report {

// The public declarations (include/strata/views.h) are the report layer's own.
using strata::order_by_name;
using strata::OrderBy;
using strata::View;
using strata::ViewOptions;

}  // namespace strata::report
