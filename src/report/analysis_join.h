// "Predicted vs measured": the static analysis (src/analyzer: the same shape and cost rules on
// meta tensors, without data) of the graph that ran, joined into its measured profile per node.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "profiler/profile.h"

namespace strata::report {

// Analyses `graph` with its inputs at `input_shapes` (graph input order) and sets the
// predicted_output_bytes of each graph-node row whose output bytes the analysis knows. Rows are
// matched to nodes by name; a name that is empty or shared by several nodes is not joined.
// Returns the number of rows joined. Fails (exit 2) like analyzer::analyze.
size_t join_static_analysis(profiler::Profile& profile, const ir::Graph& graph,
                            const std::vector<std::vector<int64_t>>& input_shapes);

}  // namespace strata::report
