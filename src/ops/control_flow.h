// What the session needs from the control-flow ops (src/ops/control_flow.cpp) to run them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/op.h"

namespace strata::ops {

// Where each capture of `body` (a subgraph of the node) is among the node's inputs: its implicit
// inputs, by name.
std::vector<size_t> capture_inputs(const NodeInfo& node, const ir::Graph& body);

// How a Scan node slices its scan inputs and stacks its scan outputs, axes resolved.
struct ScanLayout {
  size_t states = 0;                 // state values before the scan inputs and outputs
  std::vector<int64_t> input_axes;   // per scan input
  std::vector<bool> input_reverse;   // per scan input: iterate from the end
  std::vector<int64_t> output_axes;  // per scan output, as given (negative: from the end)
  std::vector<bool> output_reverse;  // per scan output: stacked from the end
};

// The layout of a Scan op for scan inputs of these ranks (before opset 9: of one batch item, the
// batch axis removed); fails naming an input axis out of range.
ScanLayout scan_layout(const Op& op, const std::vector<int64_t>& input_ranks);

// How the cost rule of an If, Loop or Scan estimates the node (If: the larger branch; Loop: trip
// count × one iteration; Scan: length × one iteration), for analysis notes; "" for other ops.
// With `figures`, the figures the choice rests on (they hold for the shapes in `ctx`).
std::string control_flow_cost_note(const Op& op, const CostContext& ctx, bool figures);

}  // namespace strata::ops
