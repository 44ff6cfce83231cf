// One evaluation of a graph with meta tensors: every node's shape rule and cost rule (the ops'
// own, as the engine uses them) at given input shapes, without reading or allocating tensor data
// beyond the small values that shape computations need (Shape, Reshape targets, Constants).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op.h"

namespace strata::analyzer {

enum class NodeState : uint8_t {
  kKnown,          // output dtypes and shapes computed
  kUnsupported,    // strata has no rules for this op
  kDataDependent,  // the output shape depends on values known only at run time
  kInputUnknown,   // an input's shape is unknown (downstream of one of the above)
};

struct NodeEval {
  NodeState state = NodeState::kInputUnknown;
  // Computed before running, as the engine does: every input is a constant, or the shape rule
  // gave the outputs' values (Shape of a static shape). Such a node is not an inference step.
  bool folded = false;
  bool has_cost = false;  // the op's cost rule gave a cost (not evaluated for folded nodes)
  // No cost because the rule needs something known only while running (a Loop's trip count, an
  // output shape that depends on values, a body's such shapes): the profiler has it; the
  // analyzer lists the node apart from "no cost rule".
  bool cost_at_run_time = false;
  ops::Cost cost;
  // A size that depends on values (NonZero's count) was set to its upper bound: how it is made
  // (InferContext::data_dependent). Empty for the other nodes.
  std::string bound_note;
};

struct EvalResult {
  std::vector<ops::Meta> metas;   // per graph value; absent (dtype undefined) when unknown
  std::vector<uint8_t> constant;  // per graph value: initializer, Constant or folded output
  std::vector<NodeEval> nodes;    // per graph node
  std::vector<uint8_t> changed;   // per graph value: differs from the previous evaluation
  size_t reevaluated = 0;         // nodes whose rules ran in the last evaluation
  // Scratch reused from node to node (no allocation per node): a node's input metas and the
  // output metas its rules compute.
  std::vector<int64_t> trips;  // per node: the trip count set by evaluate (-1: none)
  ops::Meta trip_meta;         // the value given as such a Loop's input M
  std::vector<const ops::Meta*> scratch_inputs;
  std::vector<ops::Meta> scratch_outputs;
};

// A constant of the graph that no node produces: an initializer, read or not.
inline bool is_stored_constant(const ir::Value& v) {
  return v.is_initializer || (v.constant && v.producer < 0 && !v.is_graph_input);
}

// A graph prepared for repeated evaluation: ops are built once.
class MetaEvaluator {
 public:
  // Builds every supported node's op (fails naming the node on an invalid attribute).
  explicit MetaEvaluator(const ir::Graph& graph);

  const ir::Graph& graph() const { return graph_; }
  // The node's op, or nullptr when the op type is unsupported.
  const ops::Op* op(size_t node) const { return ops_[node].get(); }
  // The node's op type (domain and name) as an index among the graph's distinct types: what
  // depends on the type only is then worked out once per type (a few dozen), not per node.
  uint32_t type_index(size_t node) const { return type_index_[node]; }
  uint32_t num_types() const { return num_types_; }

  // Evaluates every node with graph input i shaped input_shapes[i] (dims may be symbolic, then
  // costs are not computed). Fails naming the node when a shape rule rejects its inputs.
  // When `out` holds an earlier evaluation of this graph, only the nodes downstream of a changed
  // input are evaluated again: rules are pure functions of their inputs' metas.
  // `trips` sets the trip count (input M) of Loop nodes whose count is otherwise unknown: node
  // index and count (InputPlan::trips_at).
  void evaluate(const std::vector<Shape>& input_shapes, EvalResult& out,
                const std::vector<std::pair<size_t, int64_t>>& trips = {}) const;

 private:
  // One node's rules into out.scratch_outputs; false when its outputs are unknown (result.state
  // says why).
  bool evaluate_node(size_t n, EvalResult& out, NodeEval& result) const;
  // Node n's inputs and outputs, packed (CSR): the evaluation loops read them for every node, and
  // the nodes' own vectors are scattered over the heap.
  std::span<const ir::ValueId> inputs(size_t n) const {
    return {values_.data() + input_begin_[n], output_begin_[n] - input_begin_[n]};
  }
  std::span<const ir::ValueId> outputs(size_t n) const {
    return {values_.data() + output_begin_[n], input_begin_[n + 1] - output_begin_[n]};
  }

  const ir::Graph& graph_;
  std::vector<std::unique_ptr<ops::Op>> ops_;
  std::vector<uint32_t> type_index_;  // per node
  uint32_t num_types_ = 0;
  std::vector<ir::ValueId> values_;                 // per node: its inputs, then its outputs
  std::vector<size_t> input_begin_, output_begin_;  // per node (input_begin_ has one more)
};

}  // namespace strata::analyzer
