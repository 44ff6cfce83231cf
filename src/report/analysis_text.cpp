#include "report/analysis_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/scope_tree.h"
#include "report/table.h"
#include "report/units.h"

namespace strata::report {

using analyzer::Analysis;
using analyzer::NodeAnalysis;
using analyzer::Polynomial;
using analyzer::Quantity;

namespace {

std::string bytes_coefficient(double bytes) {
  return human_bytes(bytes);
}

std::string formula_text(const Analysis& a, const Polynomial& p, bool bytes) {
  if (p.is_constant()) return bytes ? human_bytes(p.constant_term()) : si_count(p.constant_term());
  return bytes ? p.str(a.symbols, bytes_coefficient) : p.str(a.symbols);
}

std::string quantity_text(const Analysis& a, const Quantity& q, bool bytes) {
  if (q.value) return bytes ? human_bytes(*q.value) : si_count(*q.value);
  if (q.formula) return formula_text(a, *q.formula, bytes);
  return "?";
}

std::string sizes_text(const Analysis& a) {
  std::vector<std::string> parts;
  for (size_t s = 0; s < a.symbols.size(); ++s)
    if (a.sizes[s]) parts.push_back(fmt::format("{}={}", a.symbols[s], *a.sizes[s]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

const Quantity& headline(const NodeAnalysis& n, const AnalysisViewOptions& o) {
  return o.macs ? n.macs : n.flops;
}

// Sums of a quantity over groups of nodes: plain numbers when every symbolic dim has a size, else
// one column per monomial (a polynomial sum). The last column counts members whose figure is
// unknown, so a group's sum is shown as partial ("+?") rather than silently short.
class QuantitySums {
 public:
  explicit QuantitySums(const Analysis& a) : a_(a), sized_(a.all_sizes_known()) {
    if (sized_) return;
    analyzer::Exponents e{};
    const size_t k = a.symbols.size();
    auto recurse = [&](auto&& self, size_t s, int left) -> void {
      if (s == k) {
        index_[e] = monomials_.size();
        monomials_.push_back(e);
        return;
      }
      for (int x = 0; x <= left; ++x) {
        e[s] = uint8_t(x);
        self(self, s + 1, left - x);
      }
      e[s] = 0;
    };
    recurse(recurse, 0, 3);
  }

  size_t width() const { return (sized_ ? 1 : monomials_.size()) + 1; }

  void append(const Quantity* q, std::vector<double>& row) const {
    const size_t start = row.size();
    row.resize(start + width(), 0);
    if (!q) return;  // not counted (folded)
    if (sized_ && q->value) {
      row[start] = *q->value;
    } else if (!sized_ && q->formula && formula_fits(*q->formula)) {
      for (const Polynomial::Term& t : q->formula->terms())
        row[start + index_.at(t.exponents)] = t.coefficient;
    } else {
      row[start + width() - 1] = 1;
    }
  }

  std::string text(const double* cols, bool bytes) const {
    std::string s;
    if (sized_) {
      s = bytes ? human_bytes(cols[0]) : si_count(cols[0]);
    } else {
      std::vector<Polynomial::Term> terms;
      for (size_t m = 0; m < monomials_.size(); ++m) terms.push_back({cols[m], monomials_[m]});
      s = formula_text(a_, Polynomial(terms), bytes);
    }
    return cols[width() - 1] > 0 ? s + " +?" : s;
  }

  // The number a share is computed from, when there is one.
  std::optional<double> number(const double* cols) const {
    if (sized_) return cols[0];
    return std::nullopt;
  }

 private:
  bool formula_fits(const Polynomial& p) const {
    for (const Polynomial::Term& t : p.terms())
      if (!index_.count(t.exponents)) return false;
    return true;
  }
  const Analysis& a_;
  bool sized_;
  std::vector<analyzer::Exponents> monomials_;
  std::map<analyzer::Exponents, size_t> index_;
};

std::string share(const QuantitySums& sums, const double* cols, const double* total) {
  const std::optional<double> v = sums.number(cols), t = sums.number(total);
  if (!v || !t || *t <= 0) return "";
  return percent(100 * *v / *t);
}

std::string note_of(const NodeAnalysis& n) {
  if (n.folded) return "folded (computed before running)";
  return n.note;
}

// Every node in the grouped tables: the headline and params, and the node count.
struct GroupRows {
  std::vector<std::vector<double>> rows;  // per node: headline sums | output-bytes sums
  std::vector<double> total;
  size_t width = 0;
};

GroupRows group_rows(const Analysis& a, const QuantitySums& sums, const AnalysisViewOptions& o) {
  GroupRows g;
  g.width = 2 * sums.width() + 1;
  g.total.assign(g.width, 0);
  for (const NodeAnalysis& n : a.nodes) {
    std::vector<double> row;
    sums.append(n.folded ? nullptr : &headline(n, o), row);
    sums.append(n.folded ? nullptr : &n.output_bytes, row);
    row.push_back(double(n.params));
    for (size_t c = 0; c < g.width; ++c) g.total[c] += row[c];
    g.rows.push_back(std::move(row));
  }
  return g;
}

}  // namespace

Table analysis_type_table(const ir::Graph& graph, const Analysis& a, const AnalysisViewOptions& o) {
  const QuantitySums sums(a);
  const GroupRows g = group_rows(a, sums, o);
  std::map<std::string, std::pair<size_t, std::vector<double>>> by_type;
  std::vector<std::string> order;
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    auto [it, inserted] =
        by_type.try_emplace(graph.nodes[n].op_type, 0, std::vector<double>(g.width, 0));
    if (inserted) order.push_back(graph.nodes[n].op_type);
    ++it->second.first;
    for (size_t c = 0; c < g.width; ++c) it->second.second[c] += g.rows[n][c];
  }
  const size_t w = sums.width();
  if (a.all_sizes_known())  // largest first when the figures are numbers
    std::stable_sort(order.begin(), order.end(), [&](const std::string& x, const std::string& y) {
      return by_type[x].second[0] > by_type[y].second[0];
    });
  const bool shares = a.all_sizes_known();  // shares of numbers, not of formulas
  std::vector<Column> columns = {
      {"type", Align::kLeft}, {"nodes", Align::kRight, 3}, {o.macs ? "MACs" : "FLOPs"}};
  if (shares) columns.push_back({"%", Align::kRight, 2});
  columns.insert(columns.end(), {{"params", Align::kRight, 3}, {"output bytes", Align::kRight, 2}});
  Table table(std::move(columns));
  for (const std::string& type : order) {
    const auto& [count, cols] = by_type[type];
    std::vector<std::string> row = {type, std::to_string(count), sums.text(cols.data(), false)};
    if (shares) row.push_back(share(sums, cols.data(), g.total.data()));
    row.insert(row.end(), {si_count(cols[2 * w]), sums.text(cols.data() + w, true)});
    table.add_row(std::move(row));
  }
  return table;
}

Table analysis_scope_table(const ir::Graph& graph, const Analysis& a,
                           const AnalysisViewOptions& o) {
  const QuantitySums sums(a);
  const GroupRows g = group_rows(a, sums, o);
  std::vector<ScopeInput> inputs;
  for (size_t n = 0; n < a.nodes.size(); ++n) inputs.push_back({graph.nodes[n].name, g.rows[n]});
  ScopeTreeOptions tree;
  tree.max_depth = o.depth;
  const std::vector<ScopeRow> rows = build_scope_tree(inputs, tree);
  const size_t w = sums.width();
  const bool shares = a.all_sizes_known();
  std::vector<Column> columns = {{"scope", Align::kLeft, 0, true},
                                 {"type", Align::kLeft, 1},
                                 {"nodes", Align::kRight, 3},
                                 {o.macs ? "MACs" : "FLOPs", Align::kRight, 1}};
  if (shares) columns.push_back({"%", Align::kRight, 2});
  columns.insert(columns.end(), {{"params", Align::kRight, 3}, {"output bytes", Align::kRight, 2}});
  Table table(std::move(columns));
  for (const ScopeRow& r : rows) {
    const std::string type =
        !r.has_children && r.own.size() == 1 ? graph.nodes[r.own[0]].op_type : "";
    std::vector<std::string> row = {std::string(size_t(2 * r.depth), ' ') + r.name, type,
                                    std::to_string(r.inputs), sums.text(r.values.data(), false)};
    if (shares) row.push_back(share(sums, r.values.data(), g.total.data()));
    row.insert(row.end(), {si_count(r.values[2 * w]), sums.text(r.values.data() + w, true)});
    table.add_row(std::move(row));
  }
  return table;
}

Table analysis_node_table(const ir::Graph& graph, const Analysis& a, const AnalysisViewOptions& o) {
  // Ranks: what stays on a narrow terminal (0 always; the highest go first).
  std::vector<Column> columns = {{"#"},
                                 {"node", Align::kLeft, 0, true},
                                 {"type", Align::kLeft, 1},
                                 {"output shape", Align::kLeft, 3},
                                 {"params", Align::kRight, 4},
                                 {o.macs ? "MACs" : "FLOPs", Align::kRight, 1},
                                 {"output", Align::kRight, 2},
                                 {"temp", Align::kRight, 5},
                                 {"live after", Align::kRight, 4}};
  if (o.training) {
    columns.push_back({"bwd FLOPs", Align::kRight, 3});
    columns.push_back({"saved", Align::kRight, 4});
    columns.push_back({"saved so far", Align::kRight, 5});
  }
  columns.push_back({"note", Align::kLeft, 6});
  Table table(std::move(columns));
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeAnalysis& n = a.nodes[i];
    std::string shapes;
    for (const analyzer::OutputInfo& out : n.outputs)
      shapes += (shapes.empty() ? "" : " ") + output_shape(a, out);
    std::vector<std::string> row = {std::to_string(i),
                                    graph.nodes[i].name,
                                    graph.nodes[i].op_type,
                                    shapes,
                                    n.params ? si_count(double(n.params)) : "",
                                    n.folded ? "-" : quantity_count(a, headline(n, o)),
                                    quantity_bytes(a, n.output_bytes),
                                    n.folded ? "-" : quantity_bytes(a, n.workspace_bytes),
                                    n.folded ? "" : quantity_bytes(a, n.live_after_bytes)};
    if (o.training) {
      row.push_back(n.folded ? "-" : quantity_count(a, n.backward_flops));
      row.push_back(n.folded ? "-" : quantity_bytes(a, n.saved_bytes));
      row.push_back(n.folded ? "-" : quantity_bytes(a, n.accumulated_saved_bytes));
    }
    row.push_back(note_of(n));
    table.add_row(std::move(row));
  }
  return table;
}

std::string quantity_count(const Analysis& a, const Quantity& q) {
  return quantity_text(a, q, false);
}

std::string quantity_bytes(const Analysis& a, const Quantity& q) {
  return quantity_text(a, q, true);
}

std::string output_shape(const Analysis& a, const analyzer::OutputInfo& out) {
  if (out.dims.empty() && out.dtype == DType::kUndefined) return "?";
  std::string s = "[";
  for (size_t d = 0; d < out.dims.size(); ++d) {
    const Quantity& q = out.dims[d];
    s += d ? "," : "";
    if (q.value)
      s += fmt::format("{:.0f}", *q.value);
    else if (q.formula)
      s += q.formula->str(a.symbols, analyzer::format_exact);
    else
      s += "?";
  }
  return s + "]";
}

std::string render_analysis_totals(const Analysis& a, const AnalysisViewOptions& o) {
  const bool symbolic = !a.symbols.empty();
  const std::string at = sizes_text(a);
  auto line = [&](const char* label, const Quantity& q, bool bytes, const char* comment = "",
                  const char* unknown =
                      "? (not a polynomial in the symbolic dims: give them sizes)") {
    std::string text;
    const bool formula = q.formula && !q.formula->is_constant();
    if (formula && q.value)
      text = fmt::format("{}  = {} at {}", formula_text(a, *q.formula, bytes),
                         bytes ? human_bytes(*q.value) : si_count(*q.value), at);
    else if (q.formula || q.value)
      text = quantity_text(a, q, bytes);
    else if (symbolic && a.totals.complete)
      text = unknown;
    else
      text = "? (unknown: see the warnings)";
    if (q.known() && !a.totals.complete) text += " (known nodes only)";
    return fmt::format("  {:<22}{}{}\n", label, text, q.known() ? comment : "");
  };
  const analyzer::Totals& t = a.totals;
  std::string out = "totals";
  if (symbolic) out += fmt::format(" (formulas in {})", fmt::join(a.symbols, ", "));
  out += "\n";
  out += fmt::format("  {:<22}{} ({})\n", "parameters", si_count(double(t.params)),
                     human_bytes(t.param_bytes));
  if (o.macs) {
    out += line("MACs", t.macs, false);
    out += line("FLOPs", t.flops, false);
  } else {
    out += line("FLOPs", t.flops, false);
    out += line("MACs", t.macs, false);
  }
  out += line("bytes read", t.bytes_read, true, "  (each input once)");
  out += line("peak activations", t.peak_activation_bytes, true,
              "  (inference, inputs included; from liveness)");
  out += line("planner arena", t.arena_bytes, true, "  (node outputs, 64-byte aligned)",
              "? (a concrete layout: give the symbolic dims sizes with --dim)");
  out += line("inputs", t.input_bytes, true);
  const Quantity& folded = t.folded_bytes;
  if (folded.value ? *folded.value != 0 : !(folded.formula && folded.formula->is_zero()))
    out += line("folded constants", folded, true);
  if (!o.training) return out;
  const analyzer::TrainingEstimate& tr = t.training;
  out +=
      "training estimate (one step; weights, gradients and optimizer state in the parameters' "
      "dtypes)\n";
  out += line("backward FLOPs", t.backward_flops, false);
  out += line("saved activations", tr.saved_activations, true);
  out += fmt::format("  {:<22}{}\n", "parameters", human_bytes(tr.parameters));
  out += fmt::format("  {:<22}{}\n", "gradients", human_bytes(tr.gradients));
  out += fmt::format("  {:<22}{}\n", "SGD momentum", human_bytes(tr.sgd_momentum));
  out += fmt::format("  {:<22}{}\n", "Adam moments", human_bytes(tr.adam));
  out += line("total with SGD", tr.total_sgd, true);
  out += line("total with Adam", tr.total_adam, true);
  return out;
}

std::string render_analysis_tables(const ir::Graph& graph, const Analysis& a,
                                   const AnalysisViewOptions& o) {
  const Table by_type = analysis_type_table(graph, a, o);
  const Table by_scope = analysis_scope_table(graph, a, o);
  const Table by_node = analysis_node_table(graph, a, o);
  check_column_names(o.fit.columns, {by_type.columns(), by_scope.columns(), by_node.columns()});
  std::string out;
  if (o.by_type) out += "\nby op type\n" + by_type.render(o.fit);
  if (o.by_scope) out += "\nby scope\n" + by_scope.render(o.fit);
  if (o.by_node) out += "\nby node\n" + by_node.render(o.fit);
  return out;
}

}  // namespace strata::report
