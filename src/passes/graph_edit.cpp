#include "passes/graph_edit.h"

#include <algorithm>

namespace strata::passes {

std::vector<std::vector<size_t>> value_readers(const ir::Graph& graph) {
  std::vector<std::vector<size_t>> readers(graph.values.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    for (ir::ValueId id : graph.nodes[n].inputs) {
      if (id == ir::kNoValue) continue;
      std::vector<size_t>& r = readers[size_t(id)];
      if (r.empty() || r.back() != n) r.push_back(n);
    }
  return readers;
}

std::optional<size_t> sole_reader(const ir::Graph& graph,
                                  const std::vector<std::vector<size_t>>& readers,
                                  ir::ValueId value) {
  if (value == ir::kNoValue) return std::nullopt;  // an unnamed (unused) output has no reader
  const ir::Value& v = graph.values[size_t(value)];
  const std::vector<size_t>& r = readers[size_t(value)];
  if (v.is_graph_output || r.size() != 1) return std::nullopt;
  return r[0];
}

const Tensor* constant_of(const ir::Graph& graph, ir::ValueId value) {
  if (value == ir::kNoValue) return nullptr;
  return graph.values[size_t(value)].constant.get();
}

std::optional<double> scalar_constant(const ir::Graph& graph, ir::ValueId value) {
  const Tensor* t = constant_of(graph, value);
  if (!t || t->numel() != 1 || !(is_float(t->dtype()) || is_integer(t->dtype())))
    return std::nullopt;
  return t->to_double()[0];
}

bool is_onnx_op(const ir::Node& node, const char* op_type) {
  return (node.domain.empty() || node.domain == "ai.onnx") && node.op_type == op_type;
}

std::optional<ir::ValueId> other_input(const ir::Node& node, ir::ValueId value) {
  if (node.inputs.size() != 2) return std::nullopt;
  ir::ValueId other = ir::kNoValue;
  if (node.inputs[0] == value && node.inputs[1] != value) other = node.inputs[1];
  if (node.inputs[1] == value && node.inputs[0] != value) other = node.inputs[0];
  if (other == ir::kNoValue) return std::nullopt;  // also an unnamed (omitted) other input
  return other;
}

ir::ValueId add_constant(ir::Graph& graph, const std::string& name, Tensor tensor) {
  std::string unique = name;
  for (int i = 1; graph.find_value(unique) != ir::kNoValue; ++i)
    unique = name + "_" + std::to_string(i);
  ir::Value v;
  v.name = unique;
  v.dtype = tensor.dtype();
  v.shape = Shape::of(tensor.shape());
  v.shape_known = true;
  v.constant = std::make_shared<const Tensor>(std::move(tensor));
  graph.values.push_back(std::move(v));
  return ir::ValueId(graph.values.size() - 1);
}

std::vector<std::string> origins(const ir::Node& node) {
  if (!node.fused_from.empty()) return node.fused_from;
  return {node.name};
}

void append_origins(std::vector<std::string>& into, const std::vector<const ir::Node*>& nodes) {
  for (const ir::Node* n : nodes)
    for (std::string& name : origins(*n)) into.push_back(std::move(name));
}

void replace_chain(ir::Graph& graph, const std::vector<size_t>& chain, ir::Node fused,
                   std::vector<bool>& dead) {
  std::vector<const ir::Node*> replaced;
  for (size_t c : chain) replaced.push_back(&graph.nodes[c]);
  append_origins(fused.fused_from, replaced);
  const size_t last = *std::max_element(chain.begin(), chain.end());
  for (size_t c : chain) dead[c] = true;
  graph.nodes[last] = std::move(fused);
  dead[last] = false;
}

void erase_nodes(ir::Graph& graph, const std::vector<bool>& dead) {
  std::vector<ir::Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    if (!dead[n]) kept.push_back(std::move(graph.nodes[n]));
  graph.nodes = std::move(kept);
  for (ir::Value& v : graph.values) v.producer = -1;
  for (size_t n = 0; n < graph.nodes.size(); ++n)
    for (ir::ValueId id : graph.nodes[n].outputs)
      if (id != ir::kNoValue) graph.values[size_t(id)].producer = int32_t(n);
}

bool broadcasts_without_growing(const ir::Value& from, const ir::Value& to) {
  if (!from.shape_known || !to.shape_known || from.shape.rank() > to.shape.rank()) return false;
  const int64_t offset = to.shape.rank() - from.shape.rank();
  for (int64_t i = 0; i < from.shape.rank(); ++i) {
    const Dim& f = from.shape[i];
    if (!(f.is_static() && f.value() == 1) && !(f == to.shape[offset + i])) return false;
  }
  return true;
}

}  // namespace strata::passes
