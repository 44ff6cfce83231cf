// Terminal views of a static analysis (strata analyze): the totals with their formulas, and the
// figures by op type, by scope (module path tree) and by node. Figures show their value when every
// symbolic dim has a size, else their formula in the symbols, else "?".
#pragma once

#include <string>

#include "analyzer/analyze.h"
#include "report/table.h"
#include "strata/analysis.h"

namespace strata::report {

// Public (include/strata/analysis.h).
using strata::AnalysisViewOptions;

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
