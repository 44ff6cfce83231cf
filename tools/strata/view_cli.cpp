#include "view_cli.h"

namespace strata::cli {

void add_node_filter_options(CLI::App* sub, ViewOptions& options) {
  sub->add_option("--top", options.top, "rows of the node table (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--type", options.types, "keep only nodes of these op types (Conv,Relu)")
      ->delimiter(',');
  sub->add_option("--min-time", options.min_time_ms,
                  "keep only nodes whose median time is at least T ms")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--name", options.name_regex,
                  "keep only nodes whose name contains a match of REGEX (ECMAScript)");
}

void add_fit_options(CLI::App* sub, ViewOptions& options) {
  sub->add_option("--columns", options.columns,
                  "show only these columns besides the essential ones (total_ms,median,kernel: "
                  "the names in the note under a fitted table, headers in lower case, '_' for "
                  "spaces)")
      ->delimiter(',');
  sub->add_flag("--wide", options.wide,
                "every column even on a terminal (files and pipes always get every column)");
  // On a terminal the tables fit its width and warnings stand out; files and pipes get neither.
  options.width = terminal_width(1);
  options.colour = use_colour(1);
}

void add_view_options(CLI::App* sub, ViewOptions& options) {
  add_node_filter_options(sub, options);
  sub->add_option_function<std::vector<std::string>>(
         "--by",
         [&options](const std::vector<std::string>& names) {
           options.views.clear();
           for (const std::string& name : names) {
             if (name == "node" || name == "all") options.views.push_back(View::kNodes);
             if (name == "type" || name == "all") options.views.push_back(View::kTypes);
             if (name == "scope" || name == "all") options.views.push_back(View::kScopes);
           }
         },
         "tables after the summary: node (top-k nodes), type (aggregate by op type), scope "
         "(tree of node-name scopes), all [default: node,type]")
      ->delimiter(',')
      ->check(CLI::IsMember({"node", "type", "scope", "all"}));
  sub->add_option_function<std::string>(
         "--order-by,--order",
         [&options](const std::string& name) {
           for (OrderBy order : {OrderBy::kTime, OrderBy::kFlops, OrderBy::kBytes, OrderBy::kGflops,
                                 OrderBy::kBandwidth, OrderBy::kAllocs})
             if (name == order_by_name(order)) options.order_by = order;
         },
         "order rows by: time (total), flops, bytes (static cost of one execution), gflops, "
         "bandwidth (achieved), allocs [default: time]")
      ->check(CLI::IsMember({"time", "flops", "bytes", "gflops", "bandwidth", "allocs"}));
  sub->add_option("--depth", options.depth, "levels of the scope tree (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  add_fit_options(sub, options);
}

}  // namespace strata::cli
