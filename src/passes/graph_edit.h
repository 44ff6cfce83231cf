// Small tools the graph-rewriting passes share: who reads a value, constants, new values, and
// removing nodes while keeping the graph consistent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace strata::passes {

// For each value, the nodes that read it (indices into graph.nodes, in order, once per node).
std::vector<std::vector<size_t>> value_readers(const ir::Graph& graph);

// The node that reads `value` when it is exactly one node and the value is not a graph output.
std::optional<size_t> sole_reader(const ir::Graph& graph,
                                  const std::vector<std::vector<size_t>>& readers,
                                  ir::ValueId value);

// The value's constant data, or nullptr.
const Tensor* constant_of(const ir::Graph& graph, ir::ValueId value);

// A one-element float or integer constant read as a double, or nullopt.
std::optional<double> scalar_constant(const ir::Graph& graph, ir::ValueId value);

// True when node `n` has op type `op_type` in the ONNX domain.
bool is_onnx_op(const ir::Node& node, const char* op_type);

// Input or output i of a node, kNoValue when the node has fewer (malformed nodes reach the passes
// too: they are left alone, and the op's own check refuses them in one sentence at load).
inline ir::ValueId input_at(const ir::Node& node, size_t i) {
  return i < node.inputs.size() ? node.inputs[i] : ir::kNoValue;
}
inline ir::ValueId output_at(const ir::Node& node, size_t i) {
  return i < node.outputs.size() ? node.outputs[i] : ir::kNoValue;
}

// For a two-input node reading `value`, the other input (nullopt when both are `value`, or when
// the other is unnamed).
std::optional<ir::ValueId> other_input(const ir::Node& node, ir::ValueId value);

// A new constant value named `name` (made unique) holding `tensor`; returns its id.
ir::ValueId add_constant(ir::Graph& graph, const std::string& name, Tensor tensor);

// The model nodes a node stands for: its fused_from list, or its own name.
std::vector<std::string> origins(const ir::Node& node);
// Appends the origins of `nodes` (in order) to `into`.
void append_origins(std::vector<std::string>& into, const std::vector<const ir::Node*>& nodes);

// Puts `fused` in place of the nodes `chain` (graph.nodes indices): it records their origins and
// takes the last one's place (every input of the chain is computed before it); the others are
// flagged in `dead` for erase_nodes.
void replace_chain(ir::Graph& graph, const std::vector<size_t>& chain, ir::Node fused,
                   std::vector<bool>& dead);

// Removes the nodes flagged in `dead` and recomputes every value's producer.
void erase_nodes(ir::Graph& graph, const std::vector<bool>& dead);

// True when `from` broadcasts one way to `to` without growing it: rank not larger, and each dim
// equal to `to`'s (the same number or the same symbol) or 1.
bool broadcasts_without_growing(const ir::Value& from, const ir::Value& to);

}  // namespace strata::passes
