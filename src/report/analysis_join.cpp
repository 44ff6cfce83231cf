#include "report/analysis_join.h"

#include <map>
#include <string>

#include "analyzer/analyze.h"
#include "report/node_figures.h"

namespace strata::report {

size_t join_static_analysis(profiler::Profile& profile, const ir::Graph& graph,
                            const std::vector<std::vector<int64_t>>& input_shapes) {
  analyzer::AnalyzeOptions options;
  options.formulas = false;  // concrete shapes: evaluate once
  options.arena = false;
  for (size_t i = 0; i < graph.inputs.size() && i < input_shapes.size(); ++i)
    options.input_shapes[graph.values[size_t(graph.inputs[i])].name] = Shape::of(input_shapes[i]);
  const analyzer::Analysis analysis = analyzer::analyze(graph, options);
  if (analysis.totals.peak_activation_bytes.value)
    profile.predicted_peak_activation_bytes = *analysis.totals.peak_activation_bytes.value;

  std::map<std::string, int> nodes_named;  // how many nodes carry each name
  for (const ir::Node& node : graph.nodes) nodes_named[node.name]++;
  std::map<std::string, size_t> node_of_name;
  for (size_t n = 0; n < graph.nodes.size(); ++n) node_of_name[graph.nodes[n].name] = n;

  size_t joined = 0;
  for (profiler::NodeProfile& row : profile.nodes) {
    if (is_user_scope(row) || row.name.empty() || nodes_named[row.name] != 1) continue;
    const analyzer::NodeAnalysis& a = analysis.nodes[node_of_name[row.name]];
    if (!a.output_bytes.value) continue;
    row.predicted_output_bytes = *a.output_bytes.value;
    ++joined;
  }
  return joined;
}

}  // namespace strata::report
