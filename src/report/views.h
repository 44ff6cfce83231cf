// Text views of a measured profile: the summary block, the per-node table (top-k), the aggregate by
// op type and the scope tree. Each returns a titled block of plain aligned text.
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "profiler/profile.h"
#include "report/table.h"
#include "report/view_options.h"

namespace strata::report {

// Whole-run statistics, throughput, CPU use, threads, memory, parts and whole, first run.
// Warnings in colour with `colour`.
std::string render_summary(const profiler::Profile& profile, bool colour = false);

// The node filters of the view options (--type, --min-time, --name). Fails (exit 2) on an invalid
// regular expression.
class NodeFilter {
 public:
  explicit NodeFilter(const ViewOptions& options);
  bool keep(const std::string& name, const std::string& op_type, double median_ms) const;

 private:
  const ViewOptions& options_;
  std::regex name_pattern_;
};

// Indices of the nodes that pass the filters of `options`, in execution order. Fails (exit 2) on an
// invalid --name regular expression.
std::vector<size_t> select_nodes(const profiler::Profile& profile, const ViewOptions& options);

// "12 nodes", or "3 nodes selected of 57 (type Conv; median ≥ 0.1 ms)" when filters apply.
std::string selection_note(const ViewOptions& options, size_t selected, size_t all);

// The columns of each table, for --columns: its names are checked against these.
std::vector<Column> node_columns(bool isolated);
std::vector<Column> type_columns();
std::vector<Column> scope_columns();
// Fails (exit 2) naming a --columns name that no table has, with the names there are.
void check_column_names(const std::vector<std::string>& names);
// The table fitting of `options` (width unless wide, columns); public (strata/views.h).
using strata::fit_options;

std::string render_node_table(const profiler::Profile& profile, const ViewOptions& options);
std::string render_type_table(const profiler::Profile& profile, const ViewOptions& options);

// The tables behind the two views above (the HTML report shows their cells) and their title lines.
Table node_table(const profiler::Profile& profile, const ViewOptions& options, std::string* title);
Table type_table(const profiler::Profile& profile, const ViewOptions& options, std::string* title);

// The nodes of one op type added up: their time per iteration and their work.
struct TypeFigures {
  std::string type;
  size_t nodes = 0, calls = 0;
  double total_ms = 0, max_ms = 0, median_sum_ms = 0;
  double flops = 0, bytes = 0;  // per execution of every node of the type
  bool has_cost = false;
  int64_t allocs = 0;
  // Achieved rates of the type as a whole: its work per iteration over its time per iteration
  // (-1: unknown).
  double gflops() const {
    return has_cost && median_sum_ms > 0 ? flops / median_sum_ms * 1e-6 : -1;
  }
  double gbps() const { return has_cost && median_sum_ms > 0 ? bytes / median_sum_ms * 1e-6 : -1; }
};

// The selected nodes by op type, in order of first appearance.
std::vector<TypeFigures> type_figures(const profiler::Profile& profile,
                                      const std::vector<size_t>& selected);
std::string render_scope_tree(const profiler::Profile& profile, const ViewOptions& options);

// The summary, then every view of options.views, separated by blank lines.
std::string render_views(const profiler::Profile& profile, const ViewOptions& options);

}  // namespace strata::report
