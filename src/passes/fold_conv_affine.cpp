#include "passes/fold_conv_affine.h"

#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// The constant's values per output channel (size `channels`), when it holds one per channel of
// an output of rank `rank` (channels at axis 1) or a single value; empty otherwise.
std::vector<double> per_channel(const Tensor& c, int64_t channels, int64_t rank) {
  if (c.rank() > rank) return {};
  std::vector<double> values = c.to_double();
  if (c.numel() == 1) return std::vector<double>(size_t(channels), values[0]);
  const int64_t axis = 1 - (rank - c.rank());  // where axis 1 of the output falls in c
  for (int64_t d = 0; d < c.rank(); ++d)
    if (c.dim(d) != (d == axis ? channels : 1)) return {};
  return values;
}

template <class T>
void scale_weights(Tensor& w, Tensor& b, const std::vector<double>& s) {
  const int64_t channels = w.dim(0), per = w.numel() / std::max<int64_t>(channels, 1);
  for (int64_t m = 0; m < channels; ++m) {
    for (int64_t i = 0; i < per; ++i) {
      T& v = w.data<T>()[m * per + i];
      v = T(double(v) * s[size_t(m)]);
    }
    b.data<T>()[m] = T(double(b.data<T>()[m]) * s[size_t(m)]);
  }
}

template <class T>
void shift_bias(Tensor& b, const std::vector<double>& t) {
  for (int64_t m = 0; m < b.numel(); ++m) b.data<T>()[m] = T(double(b.data<T>()[m]) + t[size_t(m)]);
}

// What a Mul or Add after node `n` scales or shifts: its per-channel weights (a Conv's [M, ...]
// weights, a BatchNormalization's [C] scale) and bias, and the rank of its output.
struct AffineTarget {
  const Tensor* w = nullptr;
  const Tensor* b = nullptr;  // nullptr: none yet (a Conv without bias)
  int64_t channels = 0, rank = 0;
};

std::optional<AffineTarget> affine_target(const ir::Graph& graph, const ir::Node& node) {
  if (node.outputs.size() != 1 || node.inputs.size() < 2) return std::nullopt;
  AffineTarget t;
  t.w = constant_of(graph, node.inputs[1]);
  if (!t.w || !is_float(t.w->dtype())) return std::nullopt;
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2] != ir::kNoValue;
  t.b = has_bias ? constant_of(graph, node.inputs[2]) : nullptr;
  if (has_bias && !t.b) return std::nullopt;
  if (is_onnx_op(node, "Conv")) {
    if (t.w->rank() < 3) return std::nullopt;
    t.channels = t.w->dim(0);
    t.rank = t.w->rank();
  } else if (is_onnx_op(node, "BatchNormalization")) {
    // Inference only (one output); Y = (X - mean) / sqrt(var + eps) · scale + B, so a scale and
    // shift after it fold into scale and B as into a Conv's W and B.
    if (node.inputs[0] == ir::kNoValue) return std::nullopt;
    const ir::Value& x = graph.values[size_t(node.inputs[0])];
    if (node.inputs.size() != 5 || !t.b || t.w->rank() != 1 || !x.shape_known ||
        x.shape.rank() < 2 || x.dtype != t.w->dtype())
      return std::nullopt;
    t.channels = t.w->dim(0);
    t.rank = x.shape.rank();
  } else {
    return std::nullopt;
  }
  // The folding walks the bias by output channel: one of another size or type is left as it is.
  if (t.b && (t.b->numel() != t.channels || t.b->dtype() != t.w->dtype())) return std::nullopt;
  return t;
}

}  // namespace

size_t fold_conv_affine(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    // A node without weights is the op's to refuse, naming it.
    const std::optional<AffineTarget> target =
        dead[n] ? std::nullopt : affine_target(graph, graph.nodes[n]);
    if (!target) continue;
    const Tensor *w = target->w, *b = target->b;
    const int64_t channels = target->channels, rank = target->rank;
    Tensor w_out = w->clone();
    Tensor b_out = b ? b->clone() : Tensor::zeros(w->dtype(), {channels});
    std::vector<const ir::Node*> absorbed;
    ir::ValueId out = graph.nodes[n].outputs[0];
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    for (;;) {
      const std::optional<size_t> r = sole_reader(graph, readers, out);
      if (!r || dead[*r]) break;
      const ir::Node& op = graph.nodes[*r];
      const bool mul = is_onnx_op(op, "Mul"), add = is_onnx_op(op, "Add");
      if (!(mul || add) || op.inputs.size() != 2 || op.outputs.size() != 1) break;
      const std::optional<ir::ValueId> other = other_input(op, out);
      const Tensor* c = other ? constant_of(graph, *other) : nullptr;
      if (!c || c->dtype() != w->dtype()) break;
      const std::vector<double> v = per_channel(*c, channels, rank);
      if (v.empty()) break;
      visit_float(w->dtype(), [&]<class T>(Type<T>) {
        if (mul)
          scale_weights<T>(w_out, b_out, v);
        else
          shift_bias<T>(b_out, v);
      });
      absorbed.push_back(&op);
      dead[*r] = true;
      out = op.outputs[0];
    }
    if (absorbed.empty()) continue;
    const std::string name = graph.nodes[n].name;
    const ir::ValueId w_id = add_constant(graph, name + ".scaled_weight", std::move(w_out));
    const ir::ValueId b_id = add_constant(graph, name + ".shifted_bias", std::move(b_out));
    ir::Node& node = graph.nodes[n];
    std::vector<std::string> from = origins(node);
    append_origins(from, absorbed);
    node.fused_from = std::move(from);
    if (node.inputs.size() < 3) node.inputs.resize(3);
    node.inputs[1] = w_id;
    node.inputs[2] = b_id;
    node.outputs[0] = out;
    folded += absorbed.size();
  }
  erase_nodes(graph, dead);
  return folded;
}

}  // namespace strata::passes
