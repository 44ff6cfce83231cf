// Lists every op of a graph that strata cannot run, all at once.
#pragma once

#include <string>

#include "ir/graph.h"

namespace strata::passes {

// Fails (exit 2) naming every unsupported node: "2 unsupported ops: Loop (opset 17) at 'loop1',
// ..." `source` (the file) starts the message.
void check_supported(const ir::Graph& graph, const std::string& source);

}  // namespace strata::passes
