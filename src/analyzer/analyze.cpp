#include "analyzer/analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <string_view>

#include "analyzer/backward.h"
#include "analyzer/figures.h"
#include "analyzer/input_plan.h"
#include "analyzer/interpolation.h"
#include "analyzer/memory.h"
#include "ops/control_flow.h"

namespace strata::analyzer {

namespace {

// Parameters: constants stored in the model (initializers, Constant nodes) that are floating-point
// tensors of rank ≥ 1, or integer tensors of rank ≥ 2 (quantized weights). Scalars are literals of
// the exported code (an epsilon, a scale) and integer vectors are shape arguments, not weights.
std::vector<bool> parameter_values(const ir::Graph& graph, const EvalResult& eval) {
  std::vector<bool> is_param(graph.values.size(), false);
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const ir::Value& v = graph.values[id];
    const bool stored = is_stored_constant(v) ||
                        (v.producer >= 0 && graph.nodes[size_t(v.producer)].op_type == "Constant");
    const ops::Meta& m = eval.metas[id];
    is_param[id] = stored && m.present() && m.shape.rank() >= (is_float(m.dtype) ? 1 : 2);
  }
  return is_param;
}

double numel(const ops::Meta& m) {
  double n = 1;
  for (const Dim& d : m.shape.dims()) n *= double(d.value());
  return n;
}

const char* state_note(NodeState state) {
  switch (state) {
    case NodeState::kUnsupported: return "strata has no rules for this op";
    case NodeState::kDataDependent:
      return "its output shape depends on values known only at run time";
    default: return "";
  }
}

// Fits already made, by the samples they come from: models repeat the same figures (N·768 in
// every layer), and a lookup costs far less than a fit. Direct-mapped: a fit whose samples map to
// a taken entry replaces it.
class FitMemo {
 public:
  // Room for about one entry per kFiguresPerEntry figures: a small model's analysis does not pay
  // for clearing a large table.
  explicit FitMemo(size_t figures)
      : bits_(std::clamp(int(std::bit_width(figures / kFiguresPerEntry)), kMinBits, kMaxBits)),
        entries_(size_t(1) << bits_) {}

  // in's fit through `samples` (at its lattice, then at the check point), or none when no
  // polynomial of its degree goes through them.
  const std::optional<Polynomial>& fit(const Interpolation& in, std::span<const double> samples) {
    const std::span<const double> lattice = samples.first(samples.size() - 1);
    if (samples.size() > kMaxSamples) return unkept_ = in.fit(lattice, samples.back());
    Entry& e = entries_[entry(samples)];
    if (e.count != samples.size() || e.degree != in.degree() || !same_bits(e.samples, samples)) {
      e.count = samples.size();
      e.degree = in.degree();
      std::copy(samples.begin(), samples.end(), e.samples);
      e.fit = in.fit(lattice, samples.back());
    }
    return e.fit;
  }

 private:
  static constexpr size_t kMaxSamples = 8;  // larger fits (several symbols) are not kept
  static constexpr size_t kFiguresPerEntry = 16;
  static constexpr int kMinBits = 4, kMaxBits = 10;
  struct Entry {
    size_t count = 0;
    int degree = 0;
    double samples[kMaxSamples];
    std::optional<Polynomial> fit;
  };
  // Bit for bit (a library memcmp call costs more than comparing these few values).
  static bool same_bits(const double* kept, std::span<const double> samples) {
    for (size_t i = 0; i < samples.size(); ++i)
      if (std::bit_cast<uint64_t>(kept[i]) != std::bit_cast<uint64_t>(samples[i])) return false;
    return true;
  }
  size_t entry(std::span<const double> samples) const {
    uint64_t h = 0;
    for (double v : samples) h = (h ^ std::bit_cast<uint64_t>(v)) * 0x9e3779b97f4a7c15;
    return size_t(h >> (64 - bits_));
  }
  int bits_;
  std::vector<Entry> entries_;
  std::optional<Polynomial> unkept_;
};

// One analysis: the evaluations of the graph, the formulas fitted through them, and the results.
class Run {
 public:
  Run(const ir::Graph& graph, const AnalyzeOptions& options, const std::vector<size_t>& trip_loops)
      : graph_(graph),
        options_(options),
        plan_(plan_inputs(graph, options.input_shapes, options.dims, trip_loops)),
        k_(plan_.symbols.size()),
        sized_(plan_.all_sizes_known()),
        fit_(k_ > 0 && options.formulas),
        evaluator_(graph) {
    if (!sized_ && !fit_)
      fail("every symbolic dim needs a size to analyse without formulas (missing: {})",
           fmt::join(plan_.symbols, ", "));
    // A few dozen types, thousands of nodes.
    std::vector<std::optional<BackwardRule>> by_type(evaluator_.num_types());
    rules_.reserve(graph.nodes.size());
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      std::optional<BackwardRule>& rule = by_type[evaluator_.type_index(n)];
      if (!rule) rule = backward_rule(graph.nodes[n].op_type);
      rules_.push_back(*rule);
    }
    // A slot per evaluation: the lattice of the highest degree, then the check, then the sizes.
    lattice_slots_ = fit_ ? Interpolation::get(k_, kMaxDegree).lattice().size() : 0;
    check_slot_ = lattice_slots_;
    exact_slot_ = fit_ ? lattice_slots_ + 1 : 0;
  }

  Analysis analyze() {
    Analysis a;
    a.symbols = plan_.symbols;
    a.sizes = plan_.sizes;
    a.input_shapes = plan_.symbolic_shapes();
    if (fit_) fit_formulas();
    if (sized_) {
      std::vector<int64_t> given;
      for (const auto& s : plan_.sizes) given.push_back(*s);
      evaluate(given, exact_slot_, true);
    }
    a.evaluations = evaluations_;
    node_results(a);
    totals(a);
    warnings(a);
    return a;
  }

 private:
  // Evaluates the graph at `sizes` (of the symbols) and records its figures in `slot`.
  void evaluate(const std::vector<int64_t>& sizes, size_t slot, bool exact) {
    try {
      evaluator_.evaluate(plan_.shapes_at(sizes), eval_, plan_.trips_at(sizes));
    } catch (const Error& e) {
      if (exact || k_ == 0) throw;
      fail("with {} the model's shape rules fail ({}); give the symbolic dims their sizes",
           plan_.sizes_str(sizes), e.what());
    }
    if (evaluations_++ == 0) {
      layout_ = make_layout(graph_, eval_);
      samples_.emplace(layout_.size, exact_slot_ + (sized_ ? 1 : 0));
      liveness_.emplace(graph_, eval_, rules_);
      if (fit_) memo_.emplace(layout_.size);
    }
    // The planner's layout is concrete, not a formula: it is made at the sizes given only.
    liveness_->figures(eval_, exact && options_.arena, memory_);
    samples_->record(graph_, eval_, memory_, rules_, layout_, slot);
  }

  // Fits every figure with degree 1, then raises the degree (evaluating the extra lattice points)
  // only while some figure that is known everywhere does not fit yet. Per figure only the degree
  // is kept; the polynomials stay in the memo, from which the results copy them.
  void fit_formulas() {
    const Interpolation* in = &interpolation(1);
    size_t evaluated = in->lattice().size();
    for (size_t p = 0; p < evaluated; ++p) evaluate(in->lattice()[p], p, false);
    evaluate(in->check_point(), check_slot_, false);
    fit_degree_.assign(layout_.size, 0);
    // False when figure i does not fit yet but might with a higher degree.
    auto try_fit = [&](size_t i) {
      const size_t n = in->lattice().size();
      double v[kMaxLatticeSize + 1];
      samples_->gather(i, n, v);
      const double check = v[n] = samples_->at(i, check_slot_);
      if (in->finite_constant({v, n}, check)) {
        fit_degree_[i] = kConstantFit;
        return true;
      }
      if (memo_->fit(*in, {v, n + 1})) {
        fit_degree_[i] = uint8_t(in->degree());
        return true;
      }
      if (!std::isfinite(check)) return true;
      for (size_t p = 0; p < n; ++p)
        if (!std::isfinite(v[p])) return true;  // unknown: more sizes will not help
      return false;
    };
    std::vector<size_t> pending;
    for (size_t i = 0; i < layout_.size; ++i)
      if (layout_.recorded[i] && !try_fit(i)) pending.push_back(i);
    for (int degree = 2; degree <= kMaxDegree && !pending.empty(); ++degree) {
      in = &interpolation(degree);
      const size_t before = evaluated;
      for (; evaluated < in->lattice().size(); ++evaluated)
        evaluate(in->lattice()[evaluated], evaluated, false);
      // Fits of a lower degree must also go through the new points.
      std::vector<double> point(k_);
      for (size_t i = 0; i < layout_.size; ++i) {
        if (!layout_.recorded[i] || fit_degree_[i] == 0) continue;
        const std::optional<Polynomial> f = formula(i);
        for (size_t p = before; p < evaluated; ++p) {
          for (size_t s = 0; s < k_; ++s) point[s] = double(in->lattice()[p][s]);
          const double want = samples_->at(i, p), got = f->evaluate(point);
          if (!(std::fabs(got - want) <= 1e-9 * std::max(1.0, std::fabs(want)))) {
            fit_degree_[i] = 0;
            pending.push_back(i);
            break;
          }
        }
      }
      std::vector<size_t> still;
      for (size_t i : pending)
        if (!try_fit(i)) still.push_back(i);
      pending = std::move(still);
    }
  }

  // The interpolation of `degree` in the symbols (Interpolation::get locks a cache: once each).
  const Interpolation& interpolation(int degree) {
    const Interpolation*& in = interpolations_[size_t(degree)];
    if (!in) in = &Interpolation::get(k_, degree);
    return *in;
  }

  // Figure i's polynomial (from the memo, or fitted again on a miss), or none.
  std::optional<Polynomial> formula(size_t i) {
    const uint8_t degree = fit_degree_[i];
    if (degree == 0) return std::nullopt;
    const double check = samples_->at(i, check_slot_);
    // The same value everywhere: what Interpolation::fit gives then.
    if (degree == kConstantFit) return Polynomial::constant(check);
    const Interpolation& in = *interpolations_[degree];
    const size_t n = in.lattice().size();
    double samples[kMaxLatticeSize + 1];
    samples_->gather(i, n, samples);
    samples[n] = check;
    return memo_->fit(in, {samples, n + 1});  // a copy
  }

  // Figure i: its formula (a constant without symbols) and its value at the sizes given, into a
  // quantity that has neither yet (filled in place: an analysis holds tens of thousands).
  void fill(size_t i, Quantity& q) {
    if (!layout_.recorded[i]) return;
    const double exact = sized_ ? samples_->at(i, exact_slot_) : kUnknown;
    if (fit_)
      q.formula = formula(i);
    else if (k_ == 0 && std::isfinite(exact))
      q.formula = Polynomial::constant(exact);
    if (std::isfinite(exact)) q.value = exact;
  }
  Quantity quantity(size_t i) {
    Quantity q;
    fill(i, q);
    return q;
  }

  // Per node: state, parameters, figures, output shapes and a note; and the node lists.
  void node_results(Analysis& a) {
    // States, dtypes and parameters from the last evaluation (the sizes given, when given).
    const EvalResult& reference = eval_;
    const std::vector<bool> is_param = parameter_values(graph_, reference);
    std::vector<bool> counted(graph_.values.size(), false);
    std::vector<int64_t> unknown_origin(graph_.values.size(), -1);  // where unknown-ness began
    std::vector<int64_t> bound_origin(graph_.values.size(), -1);    // the upper bound it rests on
    a.nodes.resize(graph_.nodes.size());
    a.output_infos.resize(layout_.ranks.size());
    size_t all_dims = 0;
    for (int64_t rank : layout_.ranks) all_dims += size_t(std::max<int64_t>(rank, 0));
    a.output_dims.resize(all_dims);
    Quantity* next_dims = a.output_dims.data();
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      const ir::Node& node = graph_.nodes[n];
      const NodeEval& e = reference.nodes[n];
      NodeAnalysis& r = a.nodes[n];
      r.state = e.state;
      r.folded = e.folded;
      r.has_cost_rule = e.state == NodeState::kKnown && e.has_cost;
      r.backward_rule_known = rules_[n].known;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const ir::ValueId id = node.inputs[i];
        if (id == ir::kNoValue || !is_param[size_t(id)]) continue;
        // The same weight read twice by one node counts once.
        if (std::find(node.inputs.begin(), node.inputs.begin() + long(i), id) !=
            node.inputs.begin() + long(i))
          continue;
        const ops::Meta& m = reference.metas[size_t(id)];
        r.params += int64_t(numel(m));
        r.param_bytes += value_bytes(m);
        if (!counted[size_t(id)]) {
          counted[size_t(id)] = true;
          a.totals.params += int64_t(numel(m));
          a.totals.param_bytes += value_bytes(m);
          if (is_float(m.dtype)) a.totals.training.gradients += value_bytes(m);
        }
      }
      const size_t base = layout_.node_offset[n];
      fill(base + kMacs, r.macs);
      fill(base + kFlops, r.flops);
      fill(base + kBackwardFlops, r.backward_flops);
      fill(base + kBytesRead, r.bytes_read);
      fill(base + kOutputBytes, r.output_bytes);
      fill(base + kWorkspaceBytes, r.workspace_bytes);
      fill(base + kSavedBytes, r.saved_bytes);
      fill(base + kLiveAfterBytes, r.live_after_bytes);
      fill(base + kAccumulatedSavedBytes, r.accumulated_saved_bytes);
      size_t dim = base + kNodeColumns;
      bool polynomial = true;
      OutputInfo* outputs = a.output_infos.data() + layout_.first_output[n];
      r.outputs = {outputs, node.outputs.size()};
      for (size_t j = 0; j < node.outputs.size(); ++j) {
        OutputInfo& out = outputs[j];
        out.dtype = reference.metas[size_t(node.outputs[j])].dtype;
        const size_t rank = size_t(std::max<int64_t>(layout_.rank(n, j), 0));
        out.dims = {next_dims, rank};
        for (size_t d = 0; d < rank; ++d) {
          fill(dim++, next_dims[d]);
          polynomial &= next_dims[d].formula.has_value();
        }
        next_dims += rank;
      }

      switch (e.state) {
        case NodeState::kKnown:
          if (e.folded) break;
          r.note = control_flow_note(n, e.has_cost);
          if (!e.has_cost && e.cost_at_run_time) {
            a.cost_at_run_time.push_back(n);
            if (r.note.empty())
              r.note = "cost known at run time (it depends on an input's value or shape)";
          } else if (!e.has_cost) {
            a.no_cost_rule.push_back(n);
            if (r.note.empty()) r.note = "no cost rule";
          }
          polynomial &= !r.has_cost_rule || (r.macs.formula && r.flops.formula);
          if (fit_ && !polynomial) {
            any_not_polynomial_ = true;
            r.note =
                "some figures are not polynomials of degree ≤ 3 in the symbolic dims (strides "
                "or divisions on them?): they need sizes";
          }
          break;
        case NodeState::kUnsupported: a.unsupported.push_back(n); break;
        case NodeState::kDataDependent: a.data_dependent.push_back(n); break;
        case NodeState::kInputUnknown: a.unknown.push_back(n); break;
      }
      if (e.state == NodeState::kKnown) {
        upper_bound_note(n, e, r, bound_origin, a);
        continue;
      }
      a.totals.complete = false;
      int64_t origin = int64_t(n);
      if (e.state == NodeState::kInputUnknown)
        for (ir::ValueId id : node.inputs)
          if (id != ir::kNoValue && unknown_origin[size_t(id)] >= 0) {
            origin = unknown_origin[size_t(id)];
            break;
          }
      for (ir::ValueId id : node.outputs) unknown_origin[size_t(id)] = origin;
      r.note = origin == int64_t(n) ? state_note(e.state)
                                    : fmt::format("its input shapes are unknown (after {})",
                                                  graph_.describe(graph_.nodes[size_t(origin)]));
    }
  }

  // How an If, Loop or Scan was estimated (ops::control_flow_cost_note), with the figures it rests
  // on when they hold for the sizes given (not for a sample of the formulas' fit).
  std::string control_flow_note(size_t n, bool has_cost) const {
    const ops::Op* op = evaluator_.op(n);
    if (!op || !op->runs_subgraphs()) return "";
    const ir::Node& node = graph_.nodes[n];
    const auto trip = std::find(plan_.trip_loops.begin(), plan_.trip_loops.end(), n);
    if (trip != plan_.trip_loops.end()) {
      const size_t k =
          plan_.symbols.size() - plan_.trip_loops.size() + size_t(trip - plan_.trip_loops.begin());
      const std::string& symbol = plan_.symbols[k];
      if (!has_cost)
        return fmt::format(
            "its trip count M is known only while running ({}), and one iteration's cost too (its "
            "body has shapes known only while running): no estimate",
            symbol);
      if (plan_.sizes[k])
        return fmt::format("M = {} = {} iterations (given) × one iteration: an upper bound", symbol,
                           *plan_.sizes[k]);
      return fmt::format(
          "its trip count M is known only while running: {} × one iteration, a formula in {} "
          "(--dim {}=COUNT sizes it)",
          symbol, symbol, symbol);
    }
    std::vector<const ops::Meta*> in;
    for (ir::ValueId id : node.inputs)
      in.push_back(id == ir::kNoValue ? nullptr : &eval_.metas[size_t(id)]);
    std::vector<ops::Meta> out;
    for (ir::ValueId id : node.outputs)
      out.push_back(id == ir::kNoValue ? ops::Meta{} : eval_.metas[size_t(id)]);
    try {
      return ir::with_node_context(graph_, node, [&] {
        return ops::control_flow_cost_note(*op, ops::CostContext(in, out), sized_);
      });
    } catch (const NotStatic&) {
      return "";
    }
  }

  // A node with a data-dependent size taken at its upper bound, or after one: its figures are
  // upper bounds, and its note says so (unless it already explains something else).
  void upper_bound_note(size_t n, const NodeEval& e, NodeAnalysis& r,
                        std::vector<int64_t>& bound_origin, Analysis& a) const {
    const ir::Node& node = graph_.nodes[n];
    int64_t origin = e.bound_note.empty() ? -1 : int64_t(n);
    if (origin < 0)
      for (ir::ValueId id : node.inputs)
        if (id != ir::kNoValue && bound_origin[size_t(id)] >= 0) {
          origin = bound_origin[size_t(id)];
          break;
        }
    if (origin < 0) return;
    for (ir::ValueId id : node.outputs) bound_origin[size_t(id)] = origin;
    if (e.folded) return;
    r.upper_bound = true;
    if (origin == int64_t(n)) {
      a.upper_bounds.push_back(n);
      r.note = (r.note.empty() ? "" : r.note + "; ") + "an upper bound: " + e.bound_note;
    } else if (r.note.empty()) {
      r.note =
          fmt::format("an upper bound (after {})", graph_.describe(graph_.nodes[size_t(origin)]));
    }
  }

  void totals(Analysis& a) {
    const size_t t = layout_.totals_offset;
    Totals& totals = a.totals;
    totals.macs = quantity(t + kTotalMacs);
    totals.flops = quantity(t + kTotalFlops);
    totals.backward_flops = quantity(t + kTotalBackwardFlops);
    totals.bytes_read = quantity(t + kTotalBytesRead);
    totals.peak_activation_bytes = quantity(t + kPeak);
    totals.arena_bytes = options_.arena ? quantity(t + kArena) : Quantity{};
    totals.input_bytes = quantity(t + kInputBytes);
    totals.folded_bytes = quantity(t + kFoldedBytes);
    TrainingEstimate& training = totals.training;
    training.saved_activations = quantity(t + kSavedTotal);
    training.parameters = totals.param_bytes;
    training.sgd_momentum = training.gradients;
    training.adam = 2 * training.gradients;
    const double fixed_sgd = training.parameters + training.gradients + training.sgd_momentum;
    const double fixed_adam = training.parameters + training.gradients + training.adam;
    auto plus = [](const Quantity& q, double c) {
      Quantity r;
      if (q.formula) r.formula = *q.formula + Polynomial::constant(c);
      if (q.value) r.value = *q.value + c;
      return r;
    };
    training.total_sgd = plus(training.saved_activations, fixed_sgd);
    training.total_adam = plus(training.saved_activations, fixed_adam);
  }

  void warnings(Analysis& a) const {
    auto list = [&](const std::vector<size_t>& nodes) {
      std::vector<std::string> parts;
      for (size_t n : nodes) parts.push_back(graph_.describe(graph_.nodes[n]));
      return fmt::format("{} node{}: {}", nodes.size(), nodes.size() == 1 ? "" : "s",
                         fmt::join(parts, ", "));
    };
    if (!a.unsupported.empty())
      a.warnings.push_back(
          fmt::format("strata has no rules for {}; their outputs and what follows are unknown",
                      list(a.unsupported)));
    if (!a.data_dependent.empty())
      a.warnings.push_back(
          fmt::format("output shapes known only at run time at {}; what follows is unknown",
                      list(a.data_dependent)));
    if (!a.upper_bounds.empty())
      a.warnings.push_back(fmt::format(
          "output sizes that depend on values are taken at their upper bound at {}: their "
          "figures, what follows and the totals are upper bounds",
          list(a.upper_bounds)));
    if (!a.no_cost_rule.empty())
      a.warnings.push_back(
          fmt::format("no cost rule, left out of the totals: {}", list(a.no_cost_rule)));
    if (!a.cost_at_run_time.empty())
      a.warnings.push_back(fmt::format(
          "cost known only at run time (a trip count, a condition, a shape that depends on values: "
          "`strata profile` counts it), "
          "left out of the totals: {}",
          list(a.cost_at_run_time)));
    if (any_not_polynomial_)
      a.warnings.push_back(
          "some figures are not polynomials in the symbolic dims; give the dims sizes to see them");
  }

  const ir::Graph& graph_;
  const AnalyzeOptions& options_;
  const InputPlan plan_;
  const size_t k_;    // symbols
  const bool sized_;  // every symbol has a size (or there is none)
  const bool fit_;    // formulas are fitted
  const MetaEvaluator evaluator_;
  std::vector<BackwardRule> rules_;  // per node
  size_t lattice_slots_ = 0, check_slot_ = 0, exact_slot_ = 0;
  int evaluations_ = 0;
  EvalResult eval_;  // updated in place: each evaluation re-runs only what the sizes change
  Layout layout_;
  std::optional<Samples> samples_;
  std::optional<Liveness> liveness_;
  MemoryFigures memory_;
  // Per figure: the degree of its formula, 0 when none, kConstantFit when it is a constant.
  static constexpr uint8_t kConstantFit = 0xff;
  std::vector<uint8_t> fit_degree_;
  std::array<const Interpolation*, kMaxDegree + 1> interpolations_{};  // by degree, once used
  std::optional<FitMemo> memo_;  // when fitting, sized by the layout

  bool any_not_polynomial_ = false;
};

}  // namespace

bool Analysis::all_sizes_known() const {
  for (const auto& s : sizes)
    if (!s) return false;
  return true;
}

const NodeAnalysis* Analysis::find(const ir::Graph& graph, std::string_view name) const {
  for (size_t n = 0; n < graph.nodes.size() && n < nodes.size(); ++n)
    if (graph.nodes[n].name == name) return &nodes[n];
  return nullptr;
}

namespace {

// The Loops whose trip count is known only while running (input M absent or computed from
// data, not from shapes): each gets a symbol, so that the loop's cost is a formula in it that
// --dim can size. Found by one evaluation at the sizes given (8 where none is).
std::vector<size_t> data_dependent_loops(const ir::Graph& graph, const AnalyzeOptions& options) {
  // Without formulas every symbol needs a size (the profiler's use): such loops stay unknown.
  if (!options.formulas) return {};
  std::vector<size_t> candidates;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    if (node.op_type != "Loop" || !node.domain.empty()) continue;
    if (node.inputs.empty() || node.inputs[0] == ir::kNoValue ||
        !is_stored_constant(graph.values[size_t(node.inputs[0])]))
      candidates.push_back(n);
  }
  if (candidates.empty()) return {};
  std::map<std::string, int64_t> input_dims;  // the sizes of the inputs' dims only
  for (const auto& [name, size] : options.dims)
    if (!name.ends_with(".trips")) input_dims[name] = size;
  const InputPlan probe = plan_inputs(graph, options.input_shapes, input_dims);
  std::vector<int64_t> sizes;
  for (const std::optional<int64_t>& s : probe.sizes) sizes.push_back(s.value_or(8));
  const MetaEvaluator evaluator(graph);
  EvalResult eval;
  try {
    evaluator.evaluate(probe.shapes_at(sizes), eval);
  } catch (const Error&) {
    return {};  // the analysis proper reports it
  }
  std::vector<size_t> loops;
  for (size_t n : candidates) {
    const ir::ValueId m = graph.nodes[n].inputs.empty() ? ir::kNoValue : graph.nodes[n].inputs[0];
    if (m == ir::kNoValue || (eval.metas[size_t(m)].present() && !eval.metas[size_t(m)].value))
      loops.push_back(n);
  }
  return loops;
}

}  // namespace

Analysis analyze(const ir::Graph& graph, const AnalyzeOptions& options) {
  return Run(graph, options, data_dependent_loops(graph, options)).analyze();
}

}  // namespace strata::analyzer
