#include "passes/fold_batch_norm.h"

#include <cmath>

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// True for a BatchNormalization that normalises with its stored statistics.
bool is_inference_batch_norm(const ir::Graph& graph, const ir::Node& node) {
  if (!is_onnx_op(node, "BatchNormalization") || node.inputs.size() != 5) return false;
  for (size_t j = 1; j < node.outputs.size(); ++j)
    if (node.outputs[j] != ir::kNoValue) return false;  // training outputs wanted
  const ops::NodeInfo info(graph, node, graph.opset);
  if (info.attr_int("training_mode", 0) != 0) return false;
  if (graph.opset < 9 && info.attr_int("spatial", 1) == 0) return false;
  if (graph.opset < 7 && info.attr_int("is_test", 0) == 0) return false;
  return true;
}

template <class T>
void fold(const Tensor& w, const Tensor* b, const std::vector<double>& scale,
          const std::vector<double>& shift, const std::vector<double>& mean, Tensor& w_out,
          Tensor& b_out) {
  const int64_t channels = w.dim(0), per_channel = w.numel() / std::max<int64_t>(channels, 1);
  for (int64_t m = 0; m < channels; ++m) {
    for (int64_t i = 0; i < per_channel; ++i) {
      const int64_t k = m * per_channel + i;
      w_out.data<T>()[k] = T(double(w.data<T>()[k]) * scale[size_t(m)]);
    }
    const double bias = b ? double(b->data<T>()[m]) : 0.0;
    b_out.data<T>()[m] = T((bias - mean[size_t(m)]) * scale[size_t(m)] + shift[size_t(m)]);
  }
}

}  // namespace

size_t fold_batch_norm(ir::Graph& graph) {
  const std::vector<std::vector<size_t>> readers = value_readers(graph);
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t folded = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    ir::Node& bn = graph.nodes[n];
    if (!is_inference_batch_norm(graph, bn)) continue;
    const ir::ValueId x = bn.inputs[0];
    if (x == ir::kNoValue) continue;  // unnamed: the op refuses it, naming its node
    const int32_t producer = graph.values[size_t(x)].producer;
    if (producer < 0 || sole_reader(graph, readers, x) != n) continue;
    ir::Node& conv = graph.nodes[size_t(producer)];
    if (!is_onnx_op(conv, "Conv") || conv.outputs.size() != 1) continue;
    const Tensor* w = constant_of(graph, conv.inputs[1]);
    const Tensor* b = conv.inputs.size() > 2 ? constant_of(graph, conv.inputs[2]) : nullptr;
    const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue;
    const Tensor* params[4];
    bool constant = w && (!has_bias || b);
    for (size_t i = 0; i < 4; ++i) {
      params[i] = constant_of(graph, bn.inputs[i + 1]);
      constant = constant && params[i];
    }
    if (!constant || !is_float(w->dtype()) || w->rank() < 1) continue;
    const int64_t channels = w->dim(0);
    bool shapes_ok = !b || b->numel() == channels;
    for (const Tensor* p : params) shapes_ok = shapes_ok && p->numel() == channels;
    if (!shapes_ok) continue;
    const double epsilon = ops::NodeInfo(graph, bn, graph.opset).attr_float("epsilon", 1e-5f);
    const std::vector<double> gamma = params[0]->to_double(), beta = params[1]->to_double();
    const std::vector<double> mean = params[2]->to_double(), var = params[3]->to_double();
    std::vector<double> scale(static_cast<size_t>(channels));
    for (size_t m = 0; m < scale.size(); ++m) scale[m] = gamma[m] / std::sqrt(var[m] + epsilon);
    Tensor w_out = Tensor::zeros(w->dtype(), w->shape());
    Tensor b_out = Tensor::zeros(w->dtype(), {channels});
    visit_float(w->dtype(),
                [&]<class T>(Type<T>) { fold<T>(*w, b, scale, beta, mean, w_out, b_out); });

    const std::string& name = conv.name.empty() ? bn.name : conv.name;
    const ir::ValueId w_id = add_constant(graph, name + ".folded_weight", std::move(w_out));
    const ir::ValueId b_id = add_constant(graph, name + ".folded_bias", std::move(b_out));
    ir::Node& c = graph.nodes[size_t(producer)];  // add_constant grew graph.values, not nodes
    c.inputs.resize(3);
    c.inputs[1] = w_id;
    c.inputs[2] = b_id;
    std::vector<std::string> from = origins(c);
    append_origins(from, {&graph.nodes[n]});
    c.fused_from = std::move(from);
    c.outputs[0] = graph.nodes[n].outputs[0];
    dead[n] = true;
    ++folded;
  }
  erase_nodes(graph, dead);
  return folded;
}

}  // namespace strata::passes
