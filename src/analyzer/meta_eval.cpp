#include "analyzer/meta_eval.h"

#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include "ops/internal_ops.h"
#include "passes/infer_shapes.h"

namespace strata::analyzer {

MetaEvaluator::MetaEvaluator(const ir::Graph& graph) : graph_(graph) {
  ops_.resize(graph.nodes.size());
  // Models repeat a few dozen op types over thousands of nodes: look each type up once.
  std::map<std::pair<std::string_view, std::string_view>, ops::OpFactory> factories;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    auto [it, inserted] = factories.try_emplace({node.domain, node.op_type}, nullptr);
    if (inserted) it->second = ops::find_op_in_domain(node.domain, node.op_type);
    if (it->second) ops_[n] = passes::make_op(graph, node, it->second);  // else unsupported
  }
}

namespace {

// Same dtype, shape and (when known) value: consumers would compute the same thing from it.
bool same_shape(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t d = 0; d < a.rank(); ++d) {
    const bool static_a = a[d].is_static(), static_b = b[d].is_static();
    if (static_a != static_b) return false;
    if (static_a ? a[d].value() != b[d].value() : !(a[d] == b[d])) return false;
  }
  return true;
}

bool same_meta(const ops::Meta& a, const ops::Meta& b) {
  if (a.dtype != b.dtype || !same_shape(a.shape, b.shape) || bool(a.value) != bool(b.value))
    return false;
  if (!a.value || a.value == b.value) return true;
  const Tensor& x = *a.value;
  const Tensor& y = *b.value;
  return x.dtype() == y.dtype() && x.shape() == y.shape() &&
         std::memcmp(x.raw(), y.raw(), x.nbytes()) == 0;
}

}  // namespace

void MetaEvaluator::evaluate(const std::vector<Shape>& input_shapes, EvalResult& out) const {
  const ir::Graph& g = graph_;
  const bool incremental =
      out.nodes.size() == g.nodes.size() && out.metas.size() == g.values.size();
  if (!incremental) {
    out.metas.assign(g.values.size(), ops::Meta{});
    out.constant.assign(g.values.size(), false);
    out.nodes.assign(g.nodes.size(), NodeEval{});
    for (size_t id = 0; id < g.values.size(); ++id) {
      const ir::Value& v = g.values[id];
      // An initializer (its data may be absent when the model was loaded without weights), or a
      // constant value given to a graph built in code.
      if (!is_stored_constant(v)) continue;
      out.metas[id] = {v.dtype, v.shape, v.constant, true};
      out.constant[id] = true;
    }
  }
  out.changed.assign(g.values.size(), !incremental);
  out.reevaluated = 0;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    ops::Meta& m = out.metas[size_t(g.inputs[i])];
    if (incremental && same_shape(m.shape, input_shapes[i])) continue;
    m = {g.values[size_t(g.inputs[i])].dtype, input_shapes[i], nullptr};
    out.changed[size_t(g.inputs[i])] = true;
  }

  std::vector<const ops::Meta*> in;
  try {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const ir::Node& node = g.nodes[n];
      bool inputs_changed = !incremental;
      for (ir::ValueId id : node.inputs)
        if (id != ir::kNoValue) inputs_changed |= out.changed[size_t(id)];
      if (!inputs_changed) continue;  // the same inputs give the same results as last time
      ++out.reevaluated;
      NodeEval& result = out.nodes[n];
      result = NodeEval{};
      std::optional<std::vector<ops::Meta>> metas = evaluate_node(n, out, in, result);
      for (size_t j = 0; j < node.outputs.size(); ++j) {
        const size_t id = size_t(node.outputs[j]);
        ops::Meta fresh = metas ? std::move((*metas)[j]) : ops::Meta{};
        out.changed[id] = !incremental || !same_meta(out.metas[id], fresh);
        out.metas[id] = std::move(fresh);
        out.constant[id] = result.folded;
      }
    }
  } catch (...) {
    out.nodes.clear();  // half updated: the next evaluation starts afresh
    throw;
  }
}

std::optional<std::vector<ops::Meta>> MetaEvaluator::evaluate_node(
    size_t n, const EvalResult& out, std::vector<const ops::Meta*>& in, NodeEval& result) const {
  const ir::Graph& g = graph_;
  const ir::Node& node = g.nodes[n];
  const ops::Op* op = ops_[n].get();
  in.clear();
  bool inputs_known = true, inputs_constant = true;
  for (ir::ValueId id : node.inputs) {
    if (id == ir::kNoValue) {
      in.push_back(nullptr);
      continue;
    }
    in.push_back(&out.metas[size_t(id)]);
    inputs_known &= out.metas[size_t(id)].present();
    inputs_constant &= out.constant[size_t(id)];
  }
  if (!op) {
    result.state = NodeState::kUnsupported;
    return std::nullopt;
  }
  if (!inputs_known) return std::nullopt;  // kInputUnknown
  std::optional<std::vector<ops::Meta>> metas = passes::infer_node(g, node, *op, out.metas);
  if (!metas) {
    result.state = NodeState::kDataDependent;
    return std::nullopt;
  }
  result.state = NodeState::kKnown;
  bool static_shapes = true;
  for (const ops::Meta& m : *metas) static_shapes &= m.shape.is_static();
  if (!static_shapes) return metas;
  // Values small enough for shape computations; larger constants keep their shapes only.
  const bool values_known =
      passes::fold_node(g, node, *op, out.metas, *metas, passes::kMaxShapeFoldBytes);
  result.folded = op->is_deterministic() && (inputs_constant || values_known);
  if (result.folded) return metas;  // computed before running: no per-inference cost
  ops::CostContext ctx(in, *metas);
  const std::optional<ops::Cost> cost =
      ir::with_node_context(g, node, [&] { return op->cost(ctx); });
  result.has_cost = cost.has_value();
  if (cost) result.cost = *cost;
  return metas;
}

}  // namespace strata::analyzer
