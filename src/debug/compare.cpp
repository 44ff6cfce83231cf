#include "debug/compare.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "core/error.h"
#include "report/table.h"

namespace strata::debug {

namespace {

void check_comparable(const std::string& name, const Tensor& a, const Tensor& b, const Dump& da,
                      const Dump& db) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape())
    fail(
        "value '{}' is {}{} in {} but {}{} in {}: the dumps do not come from the same model and "
        "inputs",
        name, dtype_name(a.dtype()), a.shape_str(), da.source, dtype_name(b.dtype()), b.shape_str(),
        db.source);
}

std::string node_label(const DumpNode& n) {
  return fmt::format("{} ({})", n.name, n.op_type);
}

}  // namespace

DumpComparison compare_dumps(const Dump& a, const Dump& b, const runtime::Tolerance& tol) {
  if (!a.ordered && !b.ordered)
    fail(
        "neither {} nor {} has an index.json: one side must be a strata dump (strata run "
        "--dump-all DIR) for the execution order",
        a.source, b.source);
  if (!a.model_signature.empty() && !b.model_signature.empty() &&
      a.model_signature != b.model_signature)
    fail("{} and {} were dumped from different models (model signatures {}… and {}…)", a.source,
         b.source, a.model_signature.substr(0, 12), b.model_signature.substr(0, 12));
  // Both ordered: the order whose values the other holds most of, so that a fused run's nodes are
  // checked whole against an unfused one rather than by parts only one side has.
  auto shared_share = [](const Dump& d, const Dump& other) {
    size_t outputs = 0, shared = 0;
    for (const DumpNode& n : d.nodes)
      for (const std::string& v : n.outputs) {
        ++outputs;
        shared += other.find(v) != nullptr;
      }
    return outputs ? double(shared) / double(outputs) : 0.0;
  };
  const Dump& order = !a.ordered                                ? b
                      : !b.ordered                              ? a
                      : shared_share(b, a) > shared_share(a, b) ? b
                                                                : a;
  DumpComparison c;
  c.nodes = order.nodes;

  std::map<std::string, bool> within;  // shared values by name: in tolerance?
  auto compare_value = [&](const std::string& name, std::optional<size_t> node) {
    const Tensor* ta = a.find(name);
    const Tensor* tb = b.find(name);
    if (!ta || !tb || within.count(name)) return;
    check_comparable(name, *ta, *tb, a, b);
    ValueDiff d{name, node, runtime::compare(*ta, *tb, tol)};
    within[name] = d.comparison.ok;
    if (!d.comparison.ok) ++c.out_of_tolerance;
    c.values.push_back(std::move(d));
  };
  for (const std::string& name : order.graph_inputs) {
    compare_value(name, std::nullopt);
    if (within.count(name) && !within[name]) c.divergent_inputs.push_back(name);
  }
  for (size_t n = 0; n < c.nodes.size(); ++n)
    for (const std::string& name : c.nodes[n].outputs) compare_value(name, n);
  if (c.values.empty())
    fail("{} and {} share no value (no name in common): they are not dumps of one model", a.source,
         b.source);
  for (const auto& [stem, t] : a.values) c.only_a += !b.values.count(stem);
  for (const auto& [stem, t] : b.values) c.only_b += !a.values.count(stem);

  // First node out of tolerance whose compared inputs are all within it.
  for (size_t n = 0; n < c.nodes.size() && !c.first_divergent; ++n) {
    const DumpNode& node = c.nodes[n];
    bool bad_output = false;
    for (const std::string& out : node.outputs) bad_output |= within.count(out) && !within[out];
    if (!bad_output) continue;
    bool inputs_within = true;
    for (const std::string& in : node.inputs) inputs_within &= !within.count(in) || within[in];
    if (inputs_within) c.first_divergent = n;
  }
  if (c.first_divergent) {
    // Inputs only one dump holds: walk back to the nodes that wrote them.
    std::map<std::string, size_t> producer;
    for (size_t n = 0; n < c.nodes.size(); ++n)
      for (const std::string& out : c.nodes[n].outputs) producer[out] = n;
    std::set<size_t> seen;
    std::vector<std::string> pending = c.nodes[*c.first_divergent].inputs;
    while (!pending.empty()) {
      const std::string in = pending.back();
      pending.pop_back();
      const auto p = producer.find(in);
      if (within.count(in) || p == producer.end() || c.nodes[p->second].folded ||
          !seen.insert(p->second).second)
        continue;
      c.unchecked_producers.push_back(p->second);
      for (const std::string& next : c.nodes[p->second].inputs) pending.push_back(next);
    }
  }
  return c;
}

// A narrow terminal keeps the names and the largest error; cosine and ULP go first.
std::vector<report::Column> comparison_columns() {
  using report::Align;
  return {{"node", Align::kLeft, 0, true},
          {"op", Align::kLeft, 2},
          {"value", Align::kLeft, 0, true},
          {"max abs"},
          {"max rel", Align::kRight, 1},
          {"cosine", Align::kRight, 3},
          {"ULP", Align::kRight, 3},
          {"mismatches", Align::kRight, 1},
          {"", Align::kLeft}};
}

std::string render_comparison(const DumpComparison& c, const std::string& label_a,
                              const std::string& label_b, const runtime::Tolerance& tol,
                              const report::FitOptions& fit) {
  using report::Align;
  report::Table table(comparison_columns());
  for (const ValueDiff& d : c.values) {
    const runtime::Comparison& r = d.comparison;
    table.add_row({d.node ? c.nodes[*d.node].name : "(input)",
                   d.node ? c.nodes[*d.node].op_type : "", d.value,
                   fmt::format("{:.3g}", r.max_abs_error), fmt::format("{:.3g}", r.max_rel_error),
                   fmt::format("{:.6f}", r.cosine), fmt::format("{}", r.max_ulp),
                   fmt::format("{}", r.mismatches), r.ok ? "" : "<<"});
  }
  std::string out =
      fmt::format("compare {} (A) with {} (B): |A - B| <= {:g} + {:g} * {}\n", label_a, label_b,
                  tol.atol, tol.rtol, tol.relative_to_tensor ? "max(|B|, rms(B))" : "|B|");
  out += table.render(fit);
  out +=
      fmt::format("{} values compared, {} out of tolerance", c.values.size(), c.out_of_tolerance);
  if (c.only_a || c.only_b) out += fmt::format(" ({} only in A, {} only in B)", c.only_a, c.only_b);
  out += "\n";
  if (!c.divergent_inputs.empty())
    out += fmt::format("inputs differ: {}\n", fmt::join(c.divergent_inputs, ", "));
  if (c.first_divergent) {
    const DumpNode& n = c.nodes[*c.first_divergent];
    out += fmt::format("first divergent node: {}\n", node_label(n));
    if (!n.fused_from.empty())
      out += fmt::format("  fused from {}\n", fmt::join(n.fused_from, ", "));
    for (size_t p : c.unchecked_producers)
      out += fmt::format("  or before it: {}, whose output only one dump holds\n",
                         node_label(c.nodes[p]));
  } else if (c.agree()) {
    out += "all values agree\n";
  }
  return out;
}

}  // namespace strata::debug
