#include "passes/fuse_layer_norm.h"

#include "ops/op.h"
#include "passes/graph_edit.h"

namespace strata::passes {

namespace {

// True for a ReduceMean over the last axis only, keeping dims.
bool reduces_last_axis(const ir::Graph& graph, const ir::Node& node) {
  if (!is_onnx_op(node, "ReduceMean") || node.inputs.empty() || node.inputs[0] == ir::kNoValue)
    return false;
  const ir::Value& x = graph.values[size_t(node.inputs[0])];
  if (!x.shape_known || x.shape.rank() < 1) return false;
  const ops::NodeInfo info(graph, node, graph.opset);
  if (info.attr_int("keepdims", 1) != 1) return false;
  std::vector<int64_t> axes;
  if (graph.opset >= 18) {
    const Tensor* t = node.inputs.size() > 1 ? constant_of(graph, node.inputs[1]) : nullptr;
    if (!t) return false;
    axes = t->to_int64();
  } else {
    axes = info.attr_ints("axes");
  }
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == x.shape.rank() - 1);
}

// The live node of `op_type` reading `value` alone.
std::optional<size_t> only(const ir::Graph& graph, const std::vector<std::vector<size_t>>& readers,
                           const std::vector<bool>& dead, ir::ValueId value, const char* op_type) {
  const std::optional<size_t> n = sole_reader(graph, readers, value);
  if (!n || dead[*n] || !is_onnx_op(graph.nodes[*n], op_type) ||
      output_at(graph.nodes[*n], 0) == ir::kNoValue)
    return std::nullopt;
  return n;
}

// A constant of the normalised axis' size (or one element) and x's dtype.
bool is_affine_param(const ir::Graph& graph, ir::ValueId id, const ir::Value& x) {
  const Tensor* t = constant_of(graph, id);
  const Dim& last = x.shape[x.shape.rank() - 1];
  return t && t->dtype() == x.dtype && t->rank() == 1 && last.is_static() &&
         t->dim(0) == last.value();
}

// "/a/b/ReduceMean" → "/a/b/LayerNormalization": the module scope stays, the op is named.
std::string fused_name(const std::string& first) {
  const size_t slash = first.rfind('/');
  if (slash == std::string::npos) return first + "/LayerNormalization";
  return first.substr(0, slash + 1) + "LayerNormalization";
}

}  // namespace

size_t fuse_layer_norm(ir::Graph& graph) {
  if (graph.opset < 7) return 0;
  std::vector<bool> dead(graph.nodes.size(), false);
  size_t fused = 0;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n] || !reduces_last_axis(graph, graph.nodes[n])) continue;
    const std::vector<std::vector<size_t>> readers = value_readers(graph);
    const ir::ValueId x = input_at(graph.nodes[n], 0);
    const ir::Value& xv = graph.values[size_t(x)];
    if (!is_float(xv.dtype)) continue;
    const ir::ValueId mean = output_at(graph.nodes[n], 0);
    const std::optional<size_t> sub = only(graph, readers, dead, mean, "Sub");
    if (!sub || input_at(graph.nodes[*sub], 0) != x || input_at(graph.nodes[*sub], 1) != mean)
      continue;
    const ir::ValueId d = output_at(graph.nodes[*sub], 0);
    // d is read by the Pow and by the Div.
    const std::vector<size_t>& d_readers = readers[size_t(d)];
    if (d_readers.size() != 2 || graph.values[size_t(d)].is_graph_output) continue;
    size_t pow = d_readers[0], div = d_readers[1];
    if (!is_onnx_op(graph.nodes[pow], "Pow")) std::swap(pow, div);
    const ir::Node& pow_node = graph.nodes[pow];
    if (dead[pow] || dead[div] || !is_onnx_op(pow_node, "Pow") || input_at(pow_node, 0) != d ||
        scalar_constant(graph, input_at(pow_node, 1)) != 2.0)
      continue;
    const std::optional<size_t> var = sole_reader(graph, readers, output_at(pow_node, 0));
    if (!var || dead[*var] || !reduces_last_axis(graph, graph.nodes[*var])) continue;
    const ir::ValueId var_out = output_at(graph.nodes[*var], 0);
    const std::optional<size_t> add = only(graph, readers, dead, var_out, "Add");
    if (!add) continue;
    const std::optional<ir::ValueId> eps_id = other_input(graph.nodes[*add], var_out);
    const std::optional<double> eps = eps_id ? scalar_constant(graph, *eps_id) : std::nullopt;
    if (!eps) continue;
    const std::optional<size_t> sqrt =
        only(graph, readers, dead, output_at(graph.nodes[*add], 0), "Sqrt");
    if (!sqrt) continue;
    const ir::Node& div_node = graph.nodes[div];
    if (!is_onnx_op(div_node, "Div") || input_at(div_node, 0) != d ||
        input_at(div_node, 1) != output_at(graph.nodes[*sqrt], 0) ||
        sole_reader(graph, readers, output_at(graph.nodes[*sqrt], 0)) != div)
      continue;
    const std::optional<size_t> mul = only(graph, readers, dead, output_at(div_node, 0), "Mul");
    if (!mul) continue;
    const std::optional<ir::ValueId> gamma = other_input(graph.nodes[*mul], output_at(div_node, 0));
    if (!gamma || !is_affine_param(graph, *gamma, xv)) continue;
    const std::optional<size_t> shift =
        only(graph, readers, dead, output_at(graph.nodes[*mul], 0), "Add");
    if (!shift) continue;
    const std::optional<ir::ValueId> beta =
        other_input(graph.nodes[*shift], output_at(graph.nodes[*mul], 0));
    if (!beta || !is_affine_param(graph, *beta, xv)) continue;

    const std::vector<size_t> chain = {n, *sub, pow, *var, *add, *sqrt, div, *mul, *shift};
    ir::Node node;
    node.name = fused_name(graph.nodes[n].name);
    node.op_type = "LayerNormalization";
    ir::Attribute axis, epsilon;
    axis.kind = ir::Attribute::Kind::kInt;
    axis.i = -1;
    epsilon.kind = ir::Attribute::Kind::kFloat;
    epsilon.f = float(*eps);
    node.attributes["axis"] = axis;
    node.attributes["epsilon"] = epsilon;
    node.inputs = {x, *gamma, *beta};
    node.outputs = {output_at(graph.nodes[*shift], 0)};
    replace_chain(graph, chain, std::move(node), dead);
    ++fused;
  }
  erase_nodes(graph, dead);
  return fused;
}

}  // namespace strata::passes
