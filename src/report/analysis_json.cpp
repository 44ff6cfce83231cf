#include "report/analysis_json.h"

#include <cmath>

namespace strata::report {

using analyzer::Analysis;
using analyzer::Quantity;
using nlohmann::json;

namespace {

const char* state_name(analyzer::NodeState s) {
  switch (s) {
    case analyzer::NodeState::kKnown: return "known";
    case analyzer::NodeState::kUnsupported: return "unsupported";
    case analyzer::NodeState::kDataDependent: return "data_dependent";
    case analyzer::NodeState::kInputUnknown: return "input_unknown";
  }
  return "unknown";
}

json number(const Quantity& q) {
  if (q.value) return *q.value;
  if (q.formula && q.formula->is_constant()) return q.formula->constant_term();
  return nullptr;
}

json formula(const Analysis& a, const Quantity& q) {
  if (!q.formula) return nullptr;
  // Built with moves: nlohmann's initializer lists copy every element.
  json terms = json::array();
  for (const analyzer::Polynomial::Term& t : q.formula->terms()) {
    json powers = json::object();
    for (size_t s = 0; s < a.symbols.size(); ++s)
      if (t.exponents[s]) powers[a.symbols[s]] = t.exponents[s];
    json term = json::object();
    term["coefficient"] = t.coefficient;
    term["powers"] = std::move(powers);
    terms.push_back(std::move(term));
  }
  json out = json::object();
  out["text"] = q.formula->str(a.symbols);
  out["terms"] = std::move(terms);
  return out;
}

// Adds `name`: number and, with symbolic dims, formulas[name].
void put(json& object, const Analysis& a, const char* name, const Quantity& q) {
  object[name] = number(q);
  if (!a.symbols.empty()) object["formulas"][name] = formula(a, q);
}

json dim_json(const Analysis& a, const Quantity& q) {
  if (q.value) return *q.value;
  if (q.formula && q.formula->is_constant()) return q.formula->constant_term();
  if (q.formula) return q.formula->str(a.symbols, analyzer::format_exact);
  return nullptr;
}

json names(const ir::Graph& graph, const std::vector<size_t>& nodes) {
  json out = json::array();
  for (size_t n : nodes) out.push_back(graph.nodes[n].name);
  return out;
}

}  // namespace

json analysis_json(const ir::Graph& graph, const Analysis& a) {
  json out;
  json symbols = json::array();
  for (size_t s = 0; s < a.symbols.size(); ++s)
    symbols.push_back(
        {{"name", a.symbols[s]}, {"size", a.sizes[s] ? json(*a.sizes[s]) : json(nullptr)}});
  out["symbols"] = std::move(symbols);
  json inputs = json::array();
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Value& v = graph.values[size_t(graph.inputs[i])];
    json shape = json::array();
    for (const Dim& d : a.input_shapes[i].dims())
      shape.push_back(d.is_static() ? json(d.value()) : json(d.symbol()));
    inputs.push_back({{"name", v.name}, {"dtype", dtype_name(v.dtype)}, {"shape", shape}});
  }
  out["inputs"] = std::move(inputs);
  out["evaluations"] = a.evaluations;

  const analyzer::Totals& t = a.totals;
  json totals = {{"params", t.params}, {"param_bytes", t.param_bytes}, {"complete", t.complete}};
  put(totals, a, "macs", t.macs);
  put(totals, a, "flops", t.flops);
  put(totals, a, "backward_flops", t.backward_flops);
  put(totals, a, "bytes_read", t.bytes_read);
  put(totals, a, "peak_activation_bytes", t.peak_activation_bytes);
  put(totals, a, "arena_bytes", t.arena_bytes);
  put(totals, a, "input_bytes", t.input_bytes);
  put(totals, a, "folded_bytes", t.folded_bytes);
  out["totals"] = std::move(totals);
  const analyzer::TrainingEstimate& tr = t.training;
  json training = {{"parameter_bytes", tr.parameters},
                   {"gradient_bytes", tr.gradients},
                   {"sgd_momentum_bytes", tr.sgd_momentum},
                   {"adam_state_bytes", tr.adam}};
  put(training, a, "saved_activation_bytes", tr.saved_activations);
  put(training, a, "total_sgd_bytes", tr.total_sgd);
  put(training, a, "total_adam_bytes", tr.total_adam);
  out["training"] = std::move(training);

  json nodes = json::array();
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const analyzer::NodeAnalysis& n = a.nodes[i];
    json outputs = json::array();
    for (const analyzer::OutputInfo& o : n.outputs) {
      json dims = json::array();
      for (const Quantity& d : o.dims) dims.push_back(dim_json(a, d));
      json output = json::object();
      output["dtype"] = dtype_name(o.dtype);
      output["shape"] =
          o.dims.empty() && o.dtype == DType::kUndefined ? json(nullptr) : std::move(dims);
      outputs.push_back(std::move(output));
    }
    json node = json::object();
    node["index"] = i;
    node["name"] = graph.nodes[i].name;
    node["op_type"] = graph.nodes[i].op_type;
    node["state"] = state_name(n.state);
    node["folded"] = n.folded;
    node["has_cost_rule"] = n.has_cost_rule;
    node["backward_rule_known"] = n.backward_rule_known;
    node["note"] = n.note;
    node["upper_bound"] = n.upper_bound;
    node["outputs"] = std::move(outputs);
    node["params"] = n.params;
    node["param_bytes"] = n.param_bytes;
    put(node, a, "macs", n.macs);
    put(node, a, "flops", n.flops);
    put(node, a, "backward_flops", n.backward_flops);
    put(node, a, "bytes_read", n.bytes_read);
    put(node, a, "output_bytes", n.output_bytes);
    put(node, a, "workspace_bytes", n.workspace_bytes);
    put(node, a, "saved_bytes", n.saved_bytes);
    put(node, a, "live_after_bytes", n.live_after_bytes);
    put(node, a, "accumulated_saved_bytes", n.accumulated_saved_bytes);
    nodes.push_back(std::move(node));
  }
  out["nodes"] = std::move(nodes);
  out["no_cost_rule"] = names(graph, a.no_cost_rule);
  out["cost_at_run_time"] = names(graph, a.cost_at_run_time);
  out["unsupported"] = names(graph, a.unsupported);
  out["data_dependent"] = names(graph, a.data_dependent);
  out["upper_bounds"] = names(graph, a.upper_bounds);
  out["warnings"] = a.warnings;
  return out;
}

}  // namespace strata::report
