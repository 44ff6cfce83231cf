#include "analyzer/meta_eval.h"

#include <cstring>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "ops/internal_ops.h"
#include "ops/upper_bound.h"
#include "passes/infer_shapes.h"

namespace strata::analyzer {

MetaEvaluator::MetaEvaluator(const ir::Graph& graph) : graph_(graph) {
  ops_.resize(graph.nodes.size());
  input_begin_.reserve(graph.nodes.size() + 1);
  output_begin_.reserve(graph.nodes.size());
  for (const ir::Node& node : graph.nodes) {
    input_begin_.push_back(values_.size());
    values_.insert(values_.end(), node.inputs.begin(), node.inputs.end());
    output_begin_.push_back(values_.size());
    values_.insert(values_.end(), node.outputs.begin(), node.outputs.end());
  }
  input_begin_.push_back(values_.size());
  // Models repeat a few dozen op types over thousands of nodes: look each type up once (ai.onnx
  // types by name; other domains are rare).
  struct Type {
    ops::OpFactory factory = nullptr;
    uint32_t index = 0;
  };
  std::unordered_map<std::string_view, Type> onnx_types;
  std::map<std::pair<std::string_view, std::string_view>, Type> other_types;
  auto type_of = [&](const ir::Node& node) -> const Type& {
    Type* type = nullptr;
    bool inserted = false;
    if (node.domain.empty()) {
      auto [it, added] = onnx_types.try_emplace(node.op_type);
      type = &it->second, inserted = added;
    } else {
      auto [it, added] = other_types.try_emplace({node.domain, node.op_type});
      type = &it->second, inserted = added;
    }
    if (inserted) *type = {ops::find_op_in_domain(node.domain, node.op_type), num_types_++};
    return *type;
  };
  type_index_.reserve(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    const Type& type = type_of(node);
    type_index_.push_back(type.index);
    if (type.factory) ops_[n] = passes::make_op(graph, node, type.factory);  // else unsupported
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

void MetaEvaluator::evaluate(const std::vector<Shape>& input_shapes, EvalResult& out,
                             const std::vector<std::pair<size_t, int64_t>>& trips) const {
  const ir::Graph& g = graph_;
  const bool incremental =
      out.nodes.size() == g.nodes.size() && out.metas.size() == g.values.size();
  if (!incremental) {
    out.metas.assign(g.values.size(), ops::Meta{});
    out.constant.assign(g.values.size(), 0);
    out.nodes.assign(g.nodes.size(), NodeEval{});
    for (size_t id = 0; id < g.values.size(); ++id) {
      const ir::Value& v = g.values[id];
      // An initializer (its data may be absent when the model was loaded without weights), or a
      // constant value given to a graph built in code.
      if (!is_stored_constant(v)) continue;
      out.metas[id] = {v.dtype, v.shape, v.constant, true};
      out.constant[id] = 1;
    }
  }
  out.changed.assign(g.values.size(), incremental ? 0 : 1);
  out.reevaluated = 0;
  // A Loop whose trip count changed is evaluated again, like a node whose inputs changed.
  std::vector<int64_t> trip_of(g.nodes.size(), -1);
  for (const auto& [node, count] : trips) trip_of[node] = count;
  std::vector<bool> trip_changed(g.nodes.size(), false);
  if (incremental && out.trips.size() == g.nodes.size())
    for (size_t n = 0; n < g.nodes.size(); ++n) trip_changed[n] = trip_of[n] != out.trips[n];
  out.trips = std::move(trip_of);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    ops::Meta& m = out.metas[size_t(g.inputs[i])];
    if (incremental && same_shape(m.shape, input_shapes[i])) continue;
    m = {g.values[size_t(g.inputs[i])].dtype, input_shapes[i], nullptr};
    out.changed[size_t(g.inputs[i])] = 1;
  }

  try {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      bool inputs_changed = !incremental || trip_changed[n];
      for (ir::ValueId id : inputs(n))
        if (id != ir::kNoValue) inputs_changed |= out.changed[size_t(id)] != 0;
      if (!inputs_changed) continue;  // the same inputs give the same results as last time
      ++out.reevaluated;
      NodeEval& result = out.nodes[n];
      result = NodeEval{};
      const bool known = evaluate_node(n, out, result);
      const std::span<const ir::ValueId> node_outputs = outputs(n);
      for (size_t j = 0; j < node_outputs.size(); ++j) {
        const size_t id = size_t(node_outputs[j]);
        ops::Meta& old = out.metas[id];
        if (known) {
          ops::Meta& fresh = out.scratch_outputs[j];
          // An unchanged output keeps its meta (and its consumers their results). The scratch
          // meta is reset before its next use.
          const bool changed = !incremental || !same_meta(old, fresh);
          if (changed) old = std::move(fresh);
          out.changed[id] = changed;
        } else {
          out.changed[id] = !incremental || old.present();
          if (old.present()) old = ops::Meta{};
        }
        out.constant[id] = result.folded;
      }
    }
  } catch (...) {
    out.nodes.clear();  // half updated: the next evaluation starts afresh
    throw;
  }
}

bool MetaEvaluator::evaluate_node(size_t n, EvalResult& out, NodeEval& result) const {
  const ir::Graph& g = graph_;
  const ir::Node& node = g.nodes[n];
  const ops::Op* op = ops_[n].get();
  std::vector<const ops::Meta*>& in = out.scratch_inputs;
  in.clear();
  bool inputs_known = true, inputs_constant = true, inputs_valued = true;
  for (ir::ValueId id : inputs(n)) {
    if (id == ir::kNoValue) {
      in.push_back(nullptr);
      continue;
    }
    const ops::Meta& m = out.metas[size_t(id)];
    in.push_back(&m);
    inputs_known &= m.present();
    inputs_constant &= out.constant[size_t(id)] != 0;
    inputs_valued &= m.value != nullptr;
  }
  if (!op) {
    result.state = NodeState::kUnsupported;
    return false;
  }
  if (!in.empty() && n < out.trips.size() && out.trips[n] >= 0) {
    out.trip_meta = {DType::kI64, Shape(),
                     std::make_shared<const Tensor>(Tensor::from<int64_t>({}, {out.trips[n]}))};
    in[0] = &out.trip_meta;
    inputs_known = true;
    for (size_t i = 1; i < in.size(); ++i) inputs_known &= !in[i] || in[i]->present();
  }
  if (!inputs_known) return false;  // kInputUnknown
  // The shape rule, as passes::infer_node runs it, into metas reused from node to node.
  std::vector<ops::Meta>& metas = out.scratch_outputs;
  metas.resize(outputs(n).size());
  for (ops::Meta& m : metas) {
    m.dtype = DType::kUndefined;
    m.value.reset();
    m.is_initializer = false;
  }
  try {
    ops::InferContext ctx(in, metas);
    ops::UpperBoundScope bounds;  // analysis states data-dependent sizes as upper bounds
    ir::with_node_context(g, node, [&] { op->infer(ctx); });
    result.bound_note = bounds.take_note();
  } catch (const NotStatic&) {
    result.state = NodeState::kDataDependent;
    return false;
  }
  bool static_shapes = true, outputs_valued = true;
  for (const ops::Meta& m : metas) {
    if (!m.present()) {
      result.state = NodeState::kDataDependent;
      return false;
    }
    static_shapes &= m.shape.is_static();
    outputs_valued &= m.value != nullptr;
  }
  result.state = NodeState::kKnown;
  // Dims no symbol sizes (a decoded image's height, the pieces of a split string): the cost rule
  // has its shapes only while running.
  result.cost_at_run_time = !static_shapes;
  if (!static_shapes) return true;
  // Values small enough for shape computations; larger constants keep their shapes only.
  // (passes::fold_node needs every input's value, or the shape rule to have given the outputs'.)
  const bool values_known =
      (inputs_valued || outputs_valued) &&
      passes::fold_node(g, node, *op, out.metas, metas, passes::kMaxShapeFoldBytes);
  result.folded = op->is_deterministic() && (inputs_constant || values_known);
  if (result.folded) return true;  // computed before running: no per-inference cost
  ops::CostContext ctx(in, metas);
  const std::optional<ops::Cost> cost =
      ir::with_node_context(g, node, [&] { return op->cost(ctx); });
  result.has_cost = cost.has_value();
  if (cost) result.cost = *cost;
  // A body whose shapes are known only while running gives its node no estimate either.
  result.cost_at_run_time = !cost && op->runs_subgraphs();
  for (size_t i = 0; !cost && i < in.size(); ++i)
    result.cost_at_run_time |= op->cost_reads_value(i) && (!in[i] || !in[i]->value);
  return true;
}

}  // namespace strata::analyzer
