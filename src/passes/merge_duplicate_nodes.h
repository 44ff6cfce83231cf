// Common subexpressions: a node computing what an earlier one computes (same op, same inputs, same
// attributes) reads the earlier node's outputs instead, and dead-node removal drops it. The
// dynamic quantization of a Transformer's attention quantizes one hidden state three times, once
// for each of the query, key and value products (ONNX Runtime's quantizer writes them so): one
// DynamicQuantizeLinear is kept. Left alone: ops whose outputs are random, nodes with subgraphs
// or tensor attributes, duplicates whose outputs are graph outputs or captured by a subgraph.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of nodes whose readers now read an earlier node's outputs.
size_t merge_duplicate_nodes(ir::Graph& graph);

}  // namespace strata::passes
