#include "report/views.h"

#include <algorithm>

#include "core/error.h"

namespace strata {

const char* order_by_name(OrderBy order) {
  switch (order) {
    case OrderBy::kTime: return "time";
    case OrderBy::kFlops: return "flops";
    case OrderBy::kBytes: return "bytes";
    case OrderBy::kGflops: return "gflops";
    case OrderBy::kBandwidth: return "bandwidth";
    case OrderBy::kAllocs: return "allocs";
  }
  return "time";
}

}  // namespace strata

namespace strata::report {

void check_column_names(const std::vector<std::string>& names) {
  check_column_names(names, {node_columns(true), type_columns(), scope_columns()});
}

std::string render_views(const profiler::Profile& profile, const ViewOptions& options) {
  check_column_names(options.columns);
  std::string out = render_summary(profile, options.colour);
  for (View view : options.views) {
    out += "\n";
    switch (view) {
      case View::kNodes: out += render_node_table(profile, options); break;
      case View::kTypes: out += render_type_table(profile, options); break;
      case View::kScopes: out += render_scope_tree(profile, options); break;
    }
  }
  return out;
}

}  // namespace strata::report

namespace strata {

void check_view_columns(const std::vector<std::string>& columns) {
  report::check_column_names(columns);
}

FitOptions fit_options(const ViewOptions& options) {
  FitOptions fit;
  fit.width = options.wide ? 0 : options.width;
  fit.columns = options.columns;
  return fit;
}

}  // namespace strata
