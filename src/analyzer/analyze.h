// Static analysis of a model without running it: shapes, parameters, MACs and FLOPs, memory, per
// node and in total, from the ops' own shape and cost rules evaluated on meta tensors. Symbolic
// dims (batch, sequence) stay symbolic: figures become polynomials in them. How it works and what
// every column means: docs/analyze.md; the formulas: docs/cost-conventions.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/input_plan.h"  // parse_symbolic_shape
#include "analyzer/meta_eval.h"
#include "analyzer/polynomial.h"
#include "core/shape.h"
#include "ir/graph.h"

namespace strata::analyzer {

// A figure that may depend on the model's symbolic dims.
struct Quantity {
  // In Analysis::symbols, when the figure is a polynomial of total degree ≤ 3 in them (a constant
  // when there are no symbols). Absent when it is not one (floor divisions) or unknown.
  std::optional<Polynomial> formula;
  // At the sizes given: set when every symbol has a size (or there are none), exact even when
  // the figure is not a polynomial.
  std::optional<double> value;
  bool known() const { return formula.has_value() || value.has_value(); }
};

struct AnalyzeOptions {
  // Shapes replacing graph inputs' declared ones; dims may be named symbols ("H").
  std::map<std::string, Shape> input_shapes;
  // Sizes of symbolic dims: figures are then also evaluated there.
  std::map<std::string, int64_t> dims;
  // Fit formulas in the symbols (several evaluations); false: only evaluate at `dims`, which must
  // then cover every symbol (what a profiler with concrete inputs needs).
  bool formulas = true;
  // Lay out the inference arena with the planner (for every evaluation).
  bool arena = true;
};

struct OutputInfo {
  DType dtype = DType::kUndefined;
  std::span<const Quantity> dims;  // empty when the shape is unknown; in Analysis::output_dims
};

struct NodeAnalysis {
  NodeState state = NodeState::kInputUnknown;
  bool folded = false;  // computed before running: not counted in totals
  bool has_cost_rule = false;
  bool backward_rule_known = false;  // false: the backward figures use the default guess
  std::string note;                  // why figures are unknown, bounds or not formulas
  // Its figures are upper bounds: it or a node before it has a data-dependent size (NonZero's
  // count) taken at its upper bound (Analysis::upper_bounds).
  bool upper_bound = false;
  std::span<const OutputInfo> outputs;  // in Analysis::output_infos
  int64_t params = 0;                   // elements of the parameters among the node's inputs
  double param_bytes = 0;               // their bytes
  Quantity macs, flops, backward_flops;
  Quantity bytes_read, output_bytes, workspace_bytes;
  Quantity saved_bytes;              // activations its backward pass reads
  Quantity live_after_bytes;         // inference: activations still needed after the node
  Quantity accumulated_saved_bytes;  // training: activations saved up to this node
};

struct TrainingEstimate {
  Quantity saved_activations;  // every activation some backward pass reads, once
  double parameters = 0;       // bytes of all parameters
  double gradients = 0;        // one gradient per floating-point parameter
  double sgd_momentum = 0;     // SGD with momentum: one buffer per floating-point parameter
  double adam = 0;             // Adam: two buffers (first and second moments)
  Quantity total_sgd, total_adam;
};

struct Totals {
  int64_t params = 0;
  double param_bytes = 0;
  // Sums over the nodes run at inference (folded nodes excluded) that have a cost rule.
  Quantity macs, flops, backward_flops, bytes_read;
  Quantity peak_activation_bytes;  // largest live set of activations (inputs included)
  Quantity arena_bytes;            // the planner's arena for the node outputs
  Quantity input_bytes;
  Quantity folded_bytes;  // values computed ahead of time (constants, shape chains)
  TrainingEstimate training;
  bool complete = true;  // false: some node's shapes are unknown (see Analysis lists)
};

// Move-only: nodes' outputs and dims point into its storage (two blocks for all the nodes, instead
// of two vectors per node to allocate and free).
struct Analysis {
  Analysis() = default;
  Analysis(Analysis&&) = default;
  Analysis& operator=(Analysis&&) = default;
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;

  std::vector<std::string> symbols;           // the formulas' symbols
  std::vector<std::optional<int64_t>> sizes;  // per symbol, the size given (if any)
  std::vector<Shape> input_shapes;            // per graph input, as analysed
  std::vector<NodeAnalysis> nodes;            // per graph node, same index as ir::Graph::nodes
  Totals totals;
  // Node indices: listed, never counted silently as zero.
  std::vector<size_t> no_cost_rule;      // run at inference, but the op has no cost rule
  std::vector<size_t> cost_at_run_time;  // the cost rule needs a value known only while running
  std::vector<size_t> unsupported;       // no rules at all
  std::vector<size_t> data_dependent;    // output shape known only at run time
  // Output sizes that depend on values, taken at their upper bound (NonZero: every element
  // non-zero; NonMaxSuppression: max_output_boxes_per_class × classes × batch): what follows
  // them are upper bounds, stated per node.
  std::vector<size_t> upper_bounds;
  std::vector<size_t> unknown;  // downstream of those: shapes unknown
  std::vector<std::string> warnings;
  int evaluations = 0;  // graph evaluations made
  // What NodeAnalysis::outputs and OutputInfo::dims view, node after node.
  std::vector<OutputInfo> output_infos;
  std::vector<Quantity> output_dims;

  bool all_sizes_known() const;
  // The node named `name`, or nullptr.
  const NodeAnalysis* find(const ir::Graph& graph, std::string_view name) const;
};

// Fails (exit 2) naming the input or dim for a shape or size that does not fit the model, and
// naming the node when a shape rule rejects the model.
Analysis analyze(const ir::Graph& graph, const AnalyzeOptions& options = {});

}  // namespace strata::analyzer
