// Dead-node removal: nodes none of whose outputs reach a graph output are dropped.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of nodes removed.
size_t remove_dead_nodes(ir::Graph& graph);

}  // namespace strata::passes
