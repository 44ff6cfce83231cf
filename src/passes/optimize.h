// The graph optimisation pipeline run before a session prepares a model for speed: constant
// folding, Transposes moved out of the convolutions' way, BatchNorm and scale/shift folding,
// LayerNorm / Conv / MatMul fusion, common subexpressions merged and dead-node removal, in that
// order. Every pass is its own
// function (and file) with its own test.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::passes {

struct PassRecord {
  std::string name;       // "fuse_conv"
  size_t changes = 0;     // nodes folded, fused or removed
  std::string note = "";  // what it left alone and why, if anything
};

// Rewrites `graph` in place and returns what each pass did, in order. Values keep their ids;
// graph inputs and outputs are unchanged. Errors name the node at fault (exit 2). A graph with a
// Gradient node is left as written (its rule differentiates the nodes as the model has them).
std::vector<PassRecord> optimize_graph(ir::Graph& graph);

}  // namespace strata::passes
