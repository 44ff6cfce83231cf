// Shape inference over the whole graph, before any input is bound: every value gets a dtype and a
// shape whose dims may stay symbolic ("batch", "(seq*64)").
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ops/op.h"

namespace strata::passes {

// Fails when the node names an output its op's shape rule did not make (`out`: the rule's
// outputs): that value would have no contents.
void check_outputs_made(const ir::Graph& graph, const ir::Node& node,
                        const std::vector<ops::Meta>& out);

// Runs one node's shape rule over `metas` (one per graph value). Returns the output metas, or
// nullopt when they are only known at run time (an input is unknown, or the rule needs a value or
// a dim that is not known yet). Errors from the rule are re-thrown naming the node.
std::optional<std::vector<ops::Meta>> infer_node(const ir::Graph& graph, const ir::Node& node,
                                                 const ops::Op& op,
                                                 const std::vector<ops::Meta>& metas);

// Computes a node's outputs ahead of time with its reference kernel when all of them are already
// known (Shape, Constant) or every input value is known and the op is deterministic, and their
// total size is at most `max_bytes`. Sets out[j].value and returns true when folded.
bool fold_node(const ir::Graph& graph, const ir::Node& node, const ops::Op& op,
               const std::vector<ops::Meta>& metas, std::vector<ops::Meta>& out, int64_t max_bytes);

// Builds a node's op from its attributes, naming the node in errors.
std::unique_ptr<ops::Op> make_op(const ir::Graph& graph, const ir::Node& node);
// The same with the node's factory already looked up (callers building thousands of nodes look
// each op type up once).
std::unique_ptr<ops::Op> make_op(const ir::Graph& graph, const ir::Node& node,
                                 ops::OpFactory factory);

struct InferStats {
  size_t inferred = 0;  // values whose dtype and shape the rules computed
  size_t declared = 0;  // values left to the model's own value_info / output types
  size_t unknown = 0;   // values known only at run time (data-dependent shapes)
};

// Largest value folded while inferring shapes: enough for any shape computation, small enough
// that analysing a model never materialises its activations.
inline constexpr int64_t kMaxShapeFoldBytes = 64 * 1024;

// Fills Value::dtype, shape and shape_known for every value the shape rules can reach, keeping
// graph inputs' symbolic dims symbolic. Where a rule cannot tell (data-dependent shape), the shape
// the model declares in value_info or its outputs is kept.
InferStats infer_shapes(ir::Graph& graph);

// Shape inference of a subgraph (a control-flow body) called with `bound`: metas for its inputs,
// then for its captures (Graph::inputs then Graph::captures order). Returns its outputs' metas;
// an output known only at run time has its declared type when the file gives one, else is absent.
// Values are folded as in infer_shapes (up to kMaxShapeFoldBytes).
std::vector<ops::Meta> infer_subgraph(const ir::Graph& graph, const std::vector<ops::Meta>& bound);
// The summed cost of one run of a subgraph called with `bound` (nodes folded ahead of time cost
// nothing; param_bytes add up, workspace is the largest); nullopt when a node has no cost rule or
// a shape that is not static.
std::optional<ops::Cost> subgraph_cost(const ir::Graph& graph, const std::vector<ops::Meta>& bound);

}  // namespace strata::passes
