#include "passes/merge_duplicate_nodes.h"

#include <fmt/format.h>

#include <cstring>
#include <string>
#include <unordered_map>

#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// Ops that may give two calls on the same inputs different outputs.
bool is_random(const ir::Node& node) {
  static const char* const kRandom[] = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  for (const char* op : kRandom)
    if (node.op_type == op) return true;
  return false;
}

template <class T>
std::string bits_of(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Everything that decides a node's outputs, as one string; "" when the node is not to be merged.
std::string signature(const ir::Node& node) {
  if (is_random(node) || node.implicit_inputs > 0) return "";
  std::string key =
      fmt::format("{}\x1f{}\x1f{}\x1f", node.domain, node.op_type, node.outputs.size());
  for (ir::ValueId id : node.inputs) key += fmt::format("{},", id);
  for (const auto& [name, a] : node.attributes) {
    using Kind = ir::Attribute::Kind;
    if (a.kind == Kind::kGraph || a.kind == Kind::kTensor || a.kind == Kind::kOther) return "";
    key += fmt::format("\x1f{}={}:", name, int(a.kind));
    switch (a.kind) {
      case Kind::kFloat: key += bits_of(std::vector<float>{a.f}); break;
      case Kind::kInt: key += std::to_string(a.i); break;
      case Kind::kString: key += a.s; break;
      case Kind::kFloats: key += bits_of(a.floats); break;
      case Kind::kInts: key += bits_of(a.ints); break;
      case Kind::kStrings:
        for (const std::string& s : a.strings) key += s + '\x1e';
        break;
      case Kind::kType: key += fmt::format("{},{}", int(a.value_kind), int(a.dtype)); break;
      default: return "";
    }
  }
  return key;
}

}  // namespace

size_t merge_duplicate_nodes(ir::Graph& graph) {
  // Values a subgraph reads by name: replacing them would break the capture.
  std::vector<bool> captured(graph.values.size(), false);
  for (const ir::Node& node : graph.nodes)
    for (size_t i = node.inputs.size() - node.implicit_inputs; i < node.inputs.size(); ++i)
      if (node.inputs[i] != ir::kNoValue) captured[size_t(node.inputs[i])] = true;
  std::vector<ir::ValueId> replacement(graph.values.size(), ir::kNoValue);
  std::unordered_map<std::string, size_t> first;  // signature → node index
  size_t merged = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    ir::Node& node = graph.nodes[n];
    for (ir::ValueId& id : node.inputs)  // inputs as merged so far (topological order)
      if (id != ir::kNoValue && replacement[size_t(id)] != ir::kNoValue)
        id = replacement[size_t(id)];
    const std::string key = signature(node);
    if (key.empty()) continue;
    const auto [at, inserted] = first.emplace(key, n);
    if (inserted) continue;
    const ir::Node& earlier = graph.nodes[at->second];
    bool replaceable = true;
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const ir::ValueId out = node.outputs[j];
      if (out == ir::kNoValue) continue;
      replaceable = replaceable && earlier.outputs[j] != ir::kNoValue &&
                    !graph.values[size_t(out)].is_graph_output && !captured[size_t(out)];
    }
    if (!replaceable) continue;
    for (size_t j = 0; j < node.outputs.size(); ++j)
      if (node.outputs[j] != ir::kNoValue)
        replacement[size_t(node.outputs[j])] = earlier.outputs[j];
    std::vector<std::string> stands_for = origins(earlier);
    append_origins(stands_for, {&node});
    graph.nodes[at->second].fused_from = std::move(stands_for);
    ++merged;
  }
  return merged;
}

}  // namespace strata::passes
