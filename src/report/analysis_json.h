// The JSON form of a static analysis (strata analyze --json FILE), documented in docs/analyze.md.
#pragma once

#include <nlohmann/json.hpp>

#include "analyzer/analyze.h"

namespace strata::report {

// Every figure as a number when known at the sizes given (else null), plus its formula when the
// model has symbolic dims: {"text": "4.09e9·N", "terms": [{"coefficient": 4.09e9, "powers":
// {"N": 1}}]}.
nlohmann::json analysis_json(const ir::Graph& graph, const analyzer::Analysis& a);

}  // namespace strata::report
