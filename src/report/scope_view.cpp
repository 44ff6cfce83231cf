// The scope tree of a measured profile: node names as module paths, nested like a timer table.
#include <fmt/format.h>

#include "report/node_figures.h"
#include "report/scope_tree.h"
#include "report/table.h"
#include "report/units.h"
#include "report/views.h"

namespace strata::report {

namespace {

// Figures summed (or maxed) into every scope.
enum ScopeColumn { kTime, kCalls, kAllocs, kFlops, kBytes, kColumns };

int order_column(OrderBy order) {
  switch (order) {
    case OrderBy::kFlops: return kFlops;
    case OrderBy::kBytes: return kBytes;
    case OrderBy::kAllocs: return kAllocs;
    case OrderBy::kTime:
    case OrderBy::kGflops:  // rates do not add up along a tree: order by time instead
    case OrderBy::kBandwidth: break;
  }
  return kTime;
}

}  // namespace

std::vector<Column> scope_columns() {
  return {{"scope", Align::kLeft, 0, true}, {"type", Align::kLeft, 1},
          {"nodes", Align::kRight, 3},      {"ncalls", Align::kRight, 3},
          {"time ms", Align::kRight, 1},    {"%tot", Align::kRight, 1},
          {"avg ms", Align::kRight, 2},     {"allocs", Align::kRight, 4}};
}

std::string render_scope_tree(const profiler::Profile& profile, const ViewOptions& options) {
  const std::vector<size_t> selected = select_nodes(profile, options);
  const RunFigures run = run_figures(profile);
  std::vector<ScopeInput> inputs;
  for (size_t i : selected) {
    const profiler::NodeProfile& n = profile.nodes[i];
    const NodeFigures f = node_figures(n, profile.machine);
    std::vector<double> values(kColumns);
    values[kTime] = f.total_ms;
    values[kCalls] = double(f.calls);
    values[kAllocs] = double(n.heap_allocations);
    values[kFlops] = n.flops;
    values[kBytes] = f.bytes;
    inputs.push_back({n.name, std::move(values)});
  }
  ScopeTreeOptions tree_options;
  tree_options.combine.assign(kColumns, Combine::kSum);
  tree_options.combine[kCalls] =
      Combine::kMax;  // a scope runs once per iteration, not once per node
  tree_options.order_column = order_column(options.order_by);
  tree_options.max_depth = options.depth;
  const std::vector<ScopeRow> rows = build_scope_tree(inputs, tree_options);

  Table table(scope_columns());
  for (const ScopeRow& r : rows) {
    const std::string type =
        r.own.size() == 1 ? profile.nodes[selected[r.own.front()]].op_type : "";
    const double time = r.values[kTime], calls = r.values[kCalls];
    table.add_row({std::string(size_t(r.depth) * 2, ' ') + r.name, type,
                   fmt::format("{}", r.inputs), fmt::format("{:.0f}", calls), milliseconds(time),
                   percent(run.total_ms > 0 ? 100 * time / run.total_ms : -1),
                   milliseconds(calls > 0 ? time / calls : 0),
                   profile.heap_counted ? fmt::format("{:.0f}", r.values[kAllocs]) : "-"});
  }
  const char* order =
      order_column(options.order_by) == kTime ? "time" : order_by_name(options.order_by);
  return fmt::format("scopes by {}{}: {} rows over {}\n", order,
                     options.depth > 0 ? fmt::format(", {} levels deep", options.depth) : "",
                     rows.size(), selection_note(options, selected.size(), profile.nodes.size())) +
         table.render(fit_options(options));
}

}  // namespace strata::report
