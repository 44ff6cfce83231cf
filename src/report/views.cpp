#include "report/views.h"

namespace strata::report {

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

std::string render_views(const profiler::Profile& profile, const ViewOptions& options) {
  std::string out = render_summary(profile);
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
