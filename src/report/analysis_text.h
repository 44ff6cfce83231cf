// Terminal views of a static analysis (strata analyze): the totals with their formulas, and the
// figures by op type, by scope (module path tree) and by node. Figures show their value when every
// symbolic dim has a size, else their formula in the symbols, else "?".
#pragma once

#include <string>

#include "analyzer/analyze.h"
#include "report/table.h"

namespace strata::report {

struct AnalysisViewOptions {
  bool macs = false;      // headline MACs instead of FLOPs
  bool training = false;  // backward FLOPs, saved activations and the training estimate
  bool by_type = true, by_scope = true, by_node = true;
  int depth = 0;   // scope tree: deepest level shown (0: all)
  FitOptions fit;  // a terminal's width (the CLI sets it; files and pipes: every column)
};

// A count or a byte size as shown in the tables: value, else formula, else "?".
std::string quantity_count(const analyzer::Analysis& a, const analyzer::Quantity& q);
std::string quantity_bytes(const analyzer::Analysis& a, const analyzer::Quantity& q);
// An output's shape: "[N,64,112,112]", or with sizes given "[8,64,112,112]".
std::string output_shape(const analyzer::Analysis& a, const analyzer::OutputInfo& out);

// The totals block (and the training estimate when asked).
std::string render_analysis_totals(const analyzer::Analysis& a, const AnalysisViewOptions& options);
// The tables (the HTML report shows their cells).
Table analysis_type_table(const ir::Graph& graph, const analyzer::Analysis& a,
                          const AnalysisViewOptions& options);
Table analysis_scope_table(const ir::Graph& graph, const analyzer::Analysis& a,
                           const AnalysisViewOptions& options);
Table analysis_node_table(const ir::Graph& graph, const analyzer::Analysis& a,
                          const AnalysisViewOptions& options);

// The tables asked for in `options`, each with a title line. Fails (exit 2) naming a
// options.fit.columns name that no table has.
std::string render_analysis_tables(const ir::Graph& graph, const analyzer::Analysis& a,
                                   const AnalysisViewOptions& options);

}  // namespace strata::report
