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

FitOptions fit_options(const ViewOptions& options) {
  FitOptions fit;
  fit.width = options.wide ? 0 : options.width;
  fit.columns = options.columns;
  return fit;
}

void check_column_names(const std::vector<std::string>& names) {
  std::vector<std::string> known;
  for (const auto& columns : {node_columns(true), type_columns(), scope_columns()})
    for (const Column& c : columns)
      if (std::find(known.begin(), known.end(), column_key(c.header)) == known.end())
        known.push_back(column_key(c.header));
  for (const std::string& name : names)
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      fail("--columns: no table has a column '{}' (the columns are {})", name, list);
    }
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
