// The per-node table (top-k) and the aggregate by op type.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "report/node_figures.h"
#include "report/table.h"
#include "report/units.h"
#include "report/views.h"

namespace strata::report {

namespace {

using profiler::NodeProfile;
using profiler::Profile;

std::string rate(double value) {
  return value < 0 ? "-" : fixed(value, 2);
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::string shapes(const NodeProfile& n) {
  if (n.input_shapes.empty() && n.output_shapes.empty()) return "";
  return join(n.input_shapes, ", ") + " → " + join(n.output_shapes, ", ");
}

}  // namespace

std::string selection_note(const ViewOptions& o, size_t selected, size_t all) {
  std::vector<std::string> filters;
  if (!o.types.empty()) filters.push_back("type " + join(o.types, ","));
  if (o.min_time_ms > 0) filters.push_back(fmt::format("median ≥ {} ms", o.min_time_ms));
  if (!o.name_regex.empty()) filters.push_back("name ~ /" + o.name_regex + "/");
  std::string note = fmt::format("{} {}", selected, selected == 1 ? "node" : "nodes");
  if (filters.empty()) return note;
  return note + fmt::format(" selected of {} ({})", all, join(filters, "; "));
}

namespace {

// Sort key: the asked figure first (unknown figures are -1 and sort last), total time second.
std::pair<double, double> node_key(const NodeProfile& n, const NodeFigures& f, OrderBy order) {
  switch (order) {
    case OrderBy::kTime: return {f.total_ms, 0};
    case OrderBy::kFlops: return {n.has_cost ? n.flops : -1, f.total_ms};
    case OrderBy::kBytes: return {n.has_cost ? f.bytes : -1, f.total_ms};
    case OrderBy::kGflops: return {f.gflops, f.total_ms};
    case OrderBy::kBandwidth: return {f.gbps, f.total_ms};
    case OrderBy::kAllocs: return {double(n.heap_allocations), double(n.heap_bytes)};
  }
  return {0, 0};
}

}  // namespace

NodeFilter::NodeFilter(const ViewOptions& options) : options_(options) {
  if (options.name_regex.empty()) return;
  try {
    name_pattern_ = std::regex(options.name_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fail("--name '{}' is not a valid regular expression ({})", options.name_regex, e.what());
  }
}

bool NodeFilter::keep(const std::string& name, const std::string& op_type, double median_ms) const {
  const std::vector<std::string>& types = options_.types;
  if (!types.empty() && std::find(types.begin(), types.end(), op_type) == types.end()) return false;
  if (options_.min_time_ms > 0 && median_ms < options_.min_time_ms) return false;
  return options_.name_regex.empty() || std::regex_search(name, name_pattern_);
}

std::vector<size_t> select_nodes(const Profile& profile, const ViewOptions& options) {
  const NodeFilter filter(options);
  std::vector<size_t> selected;
  for (size_t i = 0; i < profile.nodes.size(); ++i) {
    const NodeProfile& n = profile.nodes[i];
    if (filter.keep(n.name, n.op_type, profiler::summarize(n.samples_ms).median))
      selected.push_back(i);
  }
  return selected;
}

// Ranks: what stays on a narrow terminal (0 always; the highest go first). Name, type and median
// say where the time goes, the share of the total next; totals, cost, rates and details last.
std::vector<Column> node_columns(bool isolated) {
  std::vector<Column> columns = {{"#"},
                                 {"node", Align::kLeft, 0, true},
                                 {"type", Align::kLeft, 1},
                                 {"calls", Align::kRight, 4},
                                 {"total ms", Align::kRight, 3},
                                 {"median", Align::kRight, 1},
                                 {"mean", Align::kRight, 5},
                                 {"min", Align::kRight, 6},
                                 {"max", Align::kRight, 6},
                                 {"sd", Align::kRight, 6},
                                 {"%total", Align::kRight, 2},
                                 {"cum%", Align::kRight, 5},
                                 {"first ms", Align::kRight, 6}};
  if (isolated) columns.push_back({"isolated", Align::kRight, 3});
  columns.push_back({"MACs", Align::kRight, 8});
  columns.push_back({"FLOPs", Align::kRight, 7});
  columns.push_back({"bytes", Align::kRight, 7});
  columns.push_back({"GFLOP/s", Align::kRight, 4});
  columns.push_back({"GB/s", Align::kRight, 5});
  columns.push_back({"%peak", Align::kRight, 5});
  columns.push_back({"bound", Align::kLeft, 4});
  columns.push_back({"kernel", Align::kLeft, 6});
  columns.push_back({"allocs", Align::kRight, 8});
  columns.push_back({"alloc bytes", Align::kRight, 8});
  columns.push_back({"shapes", Align::kLeft, 9});
  return columns;
}

std::vector<Column> type_columns() {
  return {
      {"type", Align::kLeft},         {"nodes", Align::kRight, 3},  {"calls", Align::kRight, 3},
      {"total ms", Align::kRight, 1}, {"%total", Align::kRight, 1}, {"mean ms", Align::kRight, 2},
      {"max ms", Align::kRight, 4},   {"FLOPs", Align::kRight, 5},  {"bytes", Align::kRight, 5},
      {"GFLOP/s", Align::kRight, 2},  {"GB/s", Align::kRight, 4},   {"allocs", Align::kRight, 6}};
}

Table node_table(const Profile& profile, const ViewOptions& options, std::string* title) {
  const std::vector<size_t> selected = select_nodes(profile, options);
  const RunFigures run = run_figures(profile);
  std::vector<NodeFigures> figures(profile.nodes.size());
  for (size_t i : selected) figures[i] = node_figures(profile.nodes[i], profile.machine);
  std::vector<size_t> order = selected;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return node_key(profile.nodes[a], figures[a], options.order_by) >
           node_key(profile.nodes[b], figures[b], options.order_by);
  });
  if (options.top > 0 && order.size() > size_t(options.top)) order.resize(size_t(options.top));

  const bool isolated = std::any_of(profile.nodes.begin(), profile.nodes.end(),
                                    [](const NodeProfile& n) { return n.isolated_median_ms >= 0; });
  Table table(node_columns(isolated));

  double cumulative = 0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const NodeProfile& n = profile.nodes[order[rank]];
    const NodeFigures& f = figures[order[rank]];
    const double share = run.total_ms > 0 ? 100 * f.total_ms / run.total_ms : -1;
    // User scopes enclose nodes and each other: adding them up would count time twice.
    const bool scope = is_user_scope(n);
    if (!scope) cumulative += std::max(share, 0.0);
    std::vector<std::string> row = {fmt::format("{}", rank + 1),
                                    n.name,
                                    n.op_type,
                                    calls_text(f),
                                    milliseconds(f.total_ms),
                                    milliseconds(f.time.median),
                                    milliseconds(f.time.mean),
                                    milliseconds(f.time.min),
                                    milliseconds(f.time.max),
                                    milliseconds(f.time.sd),
                                    percent(share),
                                    share < 0 || scope ? "-" : percent(cumulative),
                                    milliseconds(n.first_run_ms)};
    if (isolated)
      row.push_back(n.isolated_median_ms >= 0 ? milliseconds(n.isolated_median_ms) : "-");
    row.push_back(n.has_cost ? si_count(n.macs) : "-");
    row.push_back(n.has_cost ? si_count(n.flops) : "-");
    row.push_back(n.has_cost ? human_bytes(f.bytes) : "-");
    row.push_back(rate(f.gflops));
    row.push_back(rate(f.gbps));
    row.push_back(percent(f.pct_of_peak));
    row.push_back(bound_name(f.bound));
    row.push_back(n.kernel.empty() ? "-" : n.kernel);
    row.push_back(profile.heap_counted ? fmt::format("{}", n.heap_allocations) : "-");
    row.push_back(profile.heap_counted ? human_bytes(double(n.heap_bytes)) : "-");
    row.push_back(shapes(n));
    table.add_row(std::move(row));
  }
  *title = fmt::format("nodes by {}: {} of {}", order_by_name(options.order_by), order.size(),
                       selection_note(options, selected.size(), profile.nodes.size()));
  return table;
}

std::string render_node_table(const Profile& profile, const ViewOptions& options) {
  std::string title;
  const Table table = node_table(profile, options, &title);
  return title + "\n" + table.render(fit_options(options));
}

std::vector<TypeFigures> type_figures(const Profile& profile, const std::vector<size_t>& selected) {
  std::vector<TypeFigures> rows;
  std::map<std::string, size_t> index;
  for (size_t i : selected) {
    const NodeProfile& n = profile.nodes[i];
    const NodeFigures f = node_figures(n, profile.machine);
    auto [it, added] = index.emplace(n.op_type, rows.size());
    if (added) rows.push_back({n.op_type});
    TypeFigures& r = rows[it->second];
    ++r.nodes;
    r.calls += size_t(f.calls);
    r.total_ms += f.total_ms;
    r.max_ms = std::max(r.max_ms, f.time.max);
    r.median_sum_ms += f.time.median;
    r.flops += n.flops;
    r.bytes += f.bytes;
    r.has_cost |= n.has_cost;
    r.allocs += n.heap_allocations;
  }
  return rows;
}

Table type_table(const Profile& profile, const ViewOptions& options, std::string* title) {
  const std::vector<size_t> selected = select_nodes(profile, options);
  const RunFigures run = run_figures(profile);
  std::vector<TypeFigures> rows = type_figures(profile, selected);
  auto key = [&](const TypeFigures& r) -> std::pair<double, double> {
    switch (options.order_by) {
      case OrderBy::kTime: return {r.total_ms, 0};
      case OrderBy::kFlops: return {r.has_cost ? r.flops : -1, r.total_ms};
      case OrderBy::kBytes: return {r.has_cost ? r.bytes : -1, r.total_ms};
      case OrderBy::kGflops: return {r.gflops(), r.total_ms};
      case OrderBy::kBandwidth: return {r.gbps(), r.total_ms};
      case OrderBy::kAllocs: return {double(r.allocs), r.total_ms};
    }
    return {0, 0};
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const TypeFigures& a, const TypeFigures& b) { return key(a) > key(b); });

  Table table(type_columns());
  for (const TypeFigures& r : rows) {
    table.add_row({r.type, fmt::format("{}", r.nodes), fmt::format("{}", r.calls),
                   milliseconds(r.total_ms),
                   percent(run.total_ms > 0 ? 100 * r.total_ms / run.total_ms : -1),
                   milliseconds(r.calls ? r.total_ms / double(r.calls) : 0), milliseconds(r.max_ms),
                   r.has_cost ? si_count(r.flops) : "-", r.has_cost ? human_bytes(r.bytes) : "-",
                   rate(r.gflops()), rate(r.gbps()),
                   profile.heap_counted ? fmt::format("{}", r.allocs) : "-"});
  }
  *title = fmt::format("op types by {}: {} {} over {}", order_by_name(options.order_by),
                       rows.size(), rows.size() == 1 ? "type" : "types",
                       selection_note(options, selected.size(), profile.nodes.size()));
  return table;
}

std::string render_type_table(const Profile& profile, const ViewOptions& options) {
  std::string title;
  const Table table = type_table(profile, options, &title);
  return title + "\n" + table.render(fit_options(options));
}

}  // namespace strata::report
