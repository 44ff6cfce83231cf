// Activation memory of an evaluation: what is live after each node when running inference (from
// liveness over the execution order), the peak, the planner's arena for the same buffers, and what
// a training forward pass keeps for the backward pass.
#pragma once

#include <limits>
#include <vector>

#include "analyzer/backward.h"
#include "analyzer/meta_eval.h"

namespace strata::analyzer {

// A figure that cannot be known (some size is not static): NaN in every figure and sample.
inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct MemoryFigures {
  // Per node (NaN when some live tensor's size is unknown; folded nodes repeat the value before).
  std::vector<double> live_after;  // activations still needed after the node, inputs included
  std::vector<double> saved;       // activations the node's backward pass reads
  std::vector<double> accumulated_saved;  // all activations saved so far (each counted once)
  double peak = 0;                        // largest live set during any node (NaN if unknown)
  double arena = 0;         // the planner's arena for the node outputs (NaN if unknown / not asked)
  double saved_total = 0;   // activations kept for the backward pass, each once (NaN if unknown)
  double input_bytes = 0;   // graph inputs
  double folded_bytes = 0;  // values computed before running (folded nodes' outputs)
};

// The lifetimes of a graph's activations over its execution order, and the tensors each node's
// backward pass keeps. They depend on which nodes are folded, not on sizes, so they are worked out
// once (from any evaluation) and serve every evaluation of the same graph.
class Liveness {
 public:
  // `rules` has one backward rule per node.
  Liveness(const ir::Graph& graph, const EvalResult& eval, const std::vector<BackwardRule>& rules);

  // The figures for one evaluation; the planner's arena only when `with_arena`.
  void figures(const EvalResult& eval, bool with_arena, MemoryFigures& out);

 private:
  struct Activation {
    ir::ValueId id;
    int64_t first, last;  // steps: written (graph inputs: 0) to last read (graph outputs: the end)
    bool graph_input;
  };
  const ir::Graph& graph_;
  int64_t steps_ = 0;
  std::vector<int64_t> step_of_;  // per node; -1 for folded nodes
  std::vector<Activation> activations_;
  std::vector<size_t> activation_of_;  // per value: index in activations_, or npos
  std::vector<size_t> saved_begin_;    // per node: its saved activations in saved_ (CSR)
  std::vector<size_t> saved_;          // indices into activations_
  std::vector<ir::ValueId> folded_outputs_;
  // Scratch reused across evaluations.
  std::vector<double> bytes_, after_, during_;
  std::vector<int> unknown_after_, unknown_during_;
  std::vector<bool> seen_;
};

// Bytes of a value's tensor (NaN when its meta is unknown or not static).
double value_bytes(const ops::Meta& meta);

}  // namespace strata::analyzer
