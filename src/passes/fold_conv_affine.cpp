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

}  // namespace

size_t fold_conv_affine(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || !is_onnx_op(graph.nodes[n], "Conv") || graph.nodes[n].inputs.size() < 2 ||
        graph.nodes[n].outputs.size() != 1)
      continue;  // a Conv without weights is the op's to refuse, naming its node
    const Tensor* w = constant_of(graph, graph.nodes[n].inputs[1]);
    const bool has_bias =
        graph.nodes[n].inputs.size() > 2 && graph.nodes[n].inputs[2] != ir::kNoValue;
    const Tensor* b = has_bias ? constant_of(graph, graph.nodes[n].inputs[2]) : nullptr;
    if (!w || !is_float(w->dtype()) || w->rank() < 3 || (has_bias && !b)) continue;
    const int64_t channels = w->dim(0), rank = w->rank();
    // The folding walks the bias by output channel: one of another size or type is left as it is.
    if (b && (b->numel() != channels || b->dtype() != w->dtype())) continue;
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
    ir::Node& conv = graph.nodes[n];
    std::vector<std::string> from = origins(conv);
    append_origins(from, absorbed);
    conv.fused_from = std::move(from);
    conv.inputs.resize(3);
    conv.inputs[1] = w_id;
    conv.inputs[2] = b_id;
    conv.outputs[0] = out;
    folded += absorbed.size();
  }
  erase_nodes(graph, dead);
  return folded;
}

}  // namespace strata::passes
