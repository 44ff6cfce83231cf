#include "passes/sink_transposes.h"

#include <numeric>

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// Activations that act on each element alone, whatever the layout.
bool is_unary_elementwise(const ir::Node& node) {
  static const char* const kOps[] = {"Relu", "Clip",        "Sigmoid",   "Tanh", "LeakyRelu",
                                     "Elu",  "HardSigmoid", "HardSwish", "Selu"};
  for (const char* op : kOps)
    if (is_onnx_op(node, op)) return node.outputs.size() == 1;
  return false;
}

bool is_binary_arithmetic(const ir::Node& node) {
  return (is_onnx_op(node, "Add") || is_onnx_op(node, "Sub") || is_onnx_op(node, "Mul") ||
          is_onnx_op(node, "Div")) &&
         node.inputs.size() == 2 && node.outputs.size() == 1;
}

// The permutation of a Transpose with a known input rank (its default reverses the axes).
std::optional<std::vector<int64_t>> permutation(const ir::Graph& graph, const ir::Node& t) {
  if (t.inputs.empty() || t.inputs[0] == ir::kNoValue) return std::nullopt;
  const ir::Value& in = graph.values[size_t(t.inputs[0])];
  if (!in.shape_known) return std::nullopt;
  std::vector<int64_t> perm = ops::NodeInfo(graph, t, graph.opset).attr_ints("perm", {});
  if (perm.empty()) {
    perm.resize(size_t(in.shape.rank()));
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  if (int64_t(perm.size()) != in.shape.rank()) return std::nullopt;
  return perm;
}

// `c` (broadcast against the Transpose's output, rank `rank`) in the input's axis order, when it
// has at most one dimension above 1 (then its bytes need no reordering): nullopt otherwise.
std::optional<Tensor> constant_before(const Tensor& c, const std::vector<int64_t>& perm) {
  const int64_t rank = int64_t(perm.size());
  if (c.rank() > rank) return std::nullopt;
  std::vector<int64_t> padded(size_t(rank - c.rank()), 1);
  for (int64_t d = 0; d < c.rank(); ++d) padded.push_back(c.dim(d));
  int64_t above_one = 0;
  for (int64_t d : padded) above_one += d > 1;
  if (above_one > 1) return std::nullopt;
  std::vector<int64_t> moved(perm.size());
  for (int64_t i = 0; i < rank; ++i) moved[size_t(perm[size_t(i)])] = padded[size_t(i)];
  Tensor t = c.clone();
  t.reshape_unchecked(moved);
  return t;
}

// Moves node `e` (the only reader of Transpose `t`'s output) before `t`; false when it cannot.
bool move_before(ir::Graph& graph, size_t t, size_t e) {
  const std::optional<std::vector<int64_t>> perm = permutation(graph, graph.nodes[t]);
  if (!perm) return false;
  const ir::ValueId x = graph.nodes[t].inputs[0], y = graph.nodes[t].outputs[0];
  const ir::Node& op = graph.nodes[e];
  if (op.outputs.empty() || op.outputs[0] == ir::kNoValue) return false;  // an unused output
  std::optional<ir::ValueId> moved_constant;
  int constant_slot = -1;
  if (is_binary_arithmetic(op)) {
    const std::optional<ir::ValueId> other = other_input(op, y);
    const Tensor* c = other ? constant_of(graph, *other) : nullptr;
    if (!c || !broadcasts_without_growing(graph.values[size_t(*other)], graph.values[size_t(y)]))
      return false;
    std::optional<Tensor> reshaped = constant_before(*c, *perm);
    if (!reshaped) return false;
    constant_slot = op.inputs[0] == y ? 1 : 0;
    moved_constant = add_constant(graph, op.name + ".transposed", std::move(*reshaped));
  } else if (!is_unary_elementwise(op)) {
    return false;
  } else {
    for (size_t i = 1; i < op.inputs.size(); ++i)  // Clip's bounds: scalars, any order
      if (op.inputs[i] != ir::kNoValue && !constant_of(graph, op.inputs[i])) return false;
  }
  // The op now reads x and writes a new value in x's order; the Transpose turns that into the
  // op's old output, so everything after is unchanged.
  ir::Value before = graph.values[size_t(x)];
  before.name = graph.values[size_t(graph.nodes[e].outputs[0])].name + ".before_transpose";
  before.dtype = graph.values[size_t(graph.nodes[e].outputs[0])].dtype;
  before.constant = nullptr;
  before.is_initializer = before.is_graph_input = before.is_graph_output = false;
  graph.values.push_back(before);
  const ir::ValueId z = ir::ValueId(graph.values.size() - 1);
  ir::Node& moved = graph.nodes[e];
  for (size_t i = 0; i < moved.inputs.size(); ++i)
    if (moved.inputs[i] == y) moved.inputs[i] = x;
  if (moved_constant) moved.inputs[size_t(constant_slot)] = *moved_constant;
  const ir::ValueId out = moved.outputs[0];
  moved.outputs[0] = z;
  ir::Node& transpose = graph.nodes[t];
  transpose.inputs[0] = z;
  transpose.outputs[0] = out;
  std::swap(graph.nodes[t], graph.nodes[e]);  // the op first, at the Transpose's place
  return true;
}

// Whether applying `first` then `second` gives back the original order.
bool undo_each_other(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.size() != second.size()) return false;
  for (size_t i = 0; i < second.size(); ++i)
    if (first[size_t(second[i])] != int64_t(i)) return false;
  return true;
}

}  // namespace

size_t sink_transposes(ir::Graph& graph) {
  size_t changes = 0;
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    for (size_t t = 0; t < graph.nodes.size() && !changed; ++t) {
      if (!is_onnx_op(graph.nodes[t], "Transpose") || graph.nodes[t].outputs.size() != 1) continue;
      const std::optional<size_t> e = sole_reader(graph, readers, graph.nodes[t].outputs[0]);
      if (e && move_before(graph, t, *e)) changed = true;
    }
    std::vector<bool> dead(graph.nodes.size(), false);
    for (size_t t = 0; t < graph.nodes.size() && !changed; ++t) {
      const ir::Node& second = graph.nodes[t];
      if (!is_onnx_op(second, "Transpose") || second.inputs.empty() ||
          second.inputs[0] == ir::kNoValue || second.outputs.empty() ||
          second.outputs[0] == ir::kNoValue)
        continue;
      const int32_t p = graph.values[size_t(second.inputs[0])].producer;
      if (p < 0 || !is_onnx_op(graph.nodes[size_t(p)], "Transpose") ||
          graph.nodes[size_t(p)].outputs.size() != 1)
        continue;
      const ir::Node& first = graph.nodes[size_t(p)];
      const std::optional<std::vector<int64_t>> a = permutation(graph, first),
                                                b = permutation(graph, second);
      const ir::ValueId from = first.inputs[0], to = second.outputs[0];
      if (!a || !b || !undo_each_other(*a, *b) || graph.values[size_t(to)].is_graph_output)
        continue;
      bool first_read = graph.values[size_t(first.outputs[0])].is_graph_output;
      for (ir::Node& node : graph.nodes)
        for (ir::ValueId& in : node.inputs) {
          if (in == to) in = from;
          first_read |= &node != &second && in == first.outputs[0];
        }
      dead[t] = changed = true;
      dead[size_t(p)] = !first_read;
    }
    if (changed) {
      ++changes;
      erase_nodes(graph, dead);  // also renumbers every value's producer after the swaps
    }
  }
  return changes;
}

}  // namespace strata::passes
