#include "report/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "profiler/stats.h"
#include "report/table.h"
#include "report/units.h"
#include "report/views.h"

namespace strata::report {

namespace {

using profiler::NodeProfile;
using profiler::Profile;

// Median as summarize() computes it (mean of the two middle values for an even count); reorders.
double median_in_place(std::vector<double>& v) {
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid));
  return (lower + upper) / 2;
}

double ratio_of(double b, double a) {
  if (a > 0) return b / a;
  return b > 0 ? std::numeric_limits<double>::infinity() : 1.0;
}

// Draws n values from `from` with replacement into `to`.
void resample(const std::vector<double>& from, std::vector<double>& to, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, from.size() - 1);
  to.resize(from.size());
  for (double& x : to) x = from[pick(rng)];
}

// Per-iteration sums over the nodes in `members` (iteration i sums the nodes' i-th samples).
std::vector<double> per_iteration_sum(const Profile& p, const std::vector<size_t>& members) {
  std::vector<double> sums;
  for (size_t i : members) {
    const std::vector<double>& s = p.nodes[i].samples_ms;
    if (sums.size() < s.size()) sums.resize(s.size(), 0.0);
    for (size_t k = 0; k < s.size(); ++k) sums[k] += s[k];
  }
  return sums;
}

std::string describe(const Profile& p) {
  return fmt::format("{}, {} iterations, {} thread{}, {}", p.model, p.iterations_ms.size(),
                     p.threads, p.threads == 1 ? "" : "s",
                     p.machine.cpu.empty() ? "unknown CPU" : p.machine.cpu);
}

std::vector<std::string> fairness_notes(const Profile& a, const Profile& b) {
  std::vector<std::string> notes;
  if (!a.model_sha256.empty() && !b.model_sha256.empty() && a.model_sha256 != b.model_sha256)
    notes.push_back("the models differ (other sha256): nodes are matched by name");
  if (a.machine.cpu != b.machine.cpu)
    notes.push_back(fmt::format("the CPUs differ ('{}' vs '{}')", a.machine.cpu, b.machine.cpu));
  if (a.threads != b.threads)
    notes.push_back(fmt::format("the thread counts differ ({} vs {})", a.threads, b.threads));
  return notes;
}

std::string signed_ms(double ms) {
  return (ms >= 0 ? "+" : "") + milliseconds(ms);
}

std::string change_pct(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string interval(const RatioEstimate& e) {
  if (e.verdict == Verdict::kTooFewSamples) return "-";
  return fmt::format("[{}, {}]", change_pct(e.low), change_pct(e.high));
}

constexpr size_t kLabelWidth = 12;

// "label       text" on one line, or wrapped under the text's start when `width` (0: no limit)
// is too narrow for it.
std::string labelled(const std::string& label, const std::string& text, size_t width) {
  const std::string line = fmt::format("{:<12}{}\n", label, text);
  if (width == 0 || text_width(line) <= width + 1 || width <= 2 * kLabelWidth) return line;
  const std::string wrapped = wrap_text(text, width - kLabelWidth, "");
  std::string out;
  size_t from = 0;
  for (size_t end = wrapped.find('\n'); end != std::string::npos;
       from = end + 1, end = wrapped.find('\n', from))
    out += fmt::format("{:<12}{}\n", from == 0 ? label : "", wrapped.substr(from, end - from));
  return out;
}

std::string whole_line(const char* label, const RatioEstimate& e, double confidence, size_t width) {
  return labelled(label,
                  fmt::format("median {} → {} ms  {}  {:.0f}% CI {}  {}", milliseconds(e.median_a),
                              milliseconds(e.median_b), change_pct(e.ratio), confidence * 100,
                              interval(e), verdict_name(e.verdict)),
                  width);
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSlower: return "slower";
    case Verdict::kNoChange: return "no significant change";
    case Verdict::kTooFewSamples: break;
  }
  return "too few samples";
}

RatioEstimate compare_samples(const std::vector<double>& a, const std::vector<double>& b,
                              const BootstrapOptions& options) {
  RatioEstimate e;
  e.median_a = profiler::summarize(a).median;
  e.median_b = profiler::summarize(b).median;
  e.ratio = e.low = e.high = ratio_of(e.median_b, e.median_a);
  if (a.size() < kMinDiffSamples || b.size() < kMinDiffSamples || options.resamples < 1) return e;
  std::mt19937_64 rng(options.seed);
  std::vector<double> ratios(size_t(options.resamples));
  std::vector<double> ra, rb;
  for (double& r : ratios) {
    resample(a, ra, rng);
    resample(b, rb, rng);
    r = ratio_of(median_in_place(rb), median_in_place(ra));
  }
  std::sort(ratios.begin(), ratios.end());
  // Percentile interval by rank (no interpolation, so infinite ratios stay well defined).
  const double tail = (1 - options.confidence) / 2;
  const double last = double(ratios.size() - 1);
  e.low = ratios[size_t(std::floor(tail * last))];
  e.high = ratios[size_t(std::ceil((1 - tail) * last))];
  e.verdict = e.high < 1 - options.min_change  ? Verdict::kFaster
              : e.low > 1 + options.min_change ? Verdict::kSlower
                                               : Verdict::kNoChange;
  return e;
}

ProfileDiff diff_profiles(const Profile& a, const Profile& b, const BootstrapOptions& options) {
  ProfileDiff d;
  d.confidence = options.confidence;
  d.min_change = options.min_change;
  d.about_a = describe(a);
  d.about_b = describe(b);
  d.notes = fairness_notes(a, b);
  d.whole = compare_samples(a.iterations_ms, b.iterations_ms, options);
  d.whole_unprofiled = compare_samples(a.unprofiled_ms, b.unprofiled_ms, options);

  // Match the k-th node of each (name, type) in A with the k-th in B.
  using Key = std::pair<std::string, std::string>;
  std::map<Key, std::vector<size_t>> b_nodes;
  for (size_t i = 0; i < b.nodes.size(); ++i)
    b_nodes[{b.nodes[i].name, b.nodes[i].op_type}].push_back(i);
  std::map<Key, size_t> used;
  std::vector<bool> b_matched(b.nodes.size(), false);
  for (const NodeProfile& n : a.nodes) {
    NodeChange c{n.name, n.op_type, true, false, {}};
    const Key key{n.name, n.op_type};
    const std::vector<size_t>& candidates = b_nodes[key];
    const size_t k = used[key]++;
    if (k < candidates.size()) {
      c.in_b = true;
      b_matched[candidates[k]] = true;
      c.estimate = compare_samples(n.samples_ms, b.nodes[candidates[k]].samples_ms, options);
    } else {
      c.estimate = compare_samples(n.samples_ms, {}, options);
    }
    d.nodes.push_back(std::move(c));
  }
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    if (b_matched[i]) continue;
    NodeChange c{b.nodes[i].name, b.nodes[i].op_type, false, true, {}};
    c.estimate = compare_samples({}, b.nodes[i].samples_ms, options);
    d.nodes.push_back(std::move(c));
  }

  // Types: per-iteration sums over each side's nodes of that type (graph nodes and scopes alike).
  std::map<std::string, std::pair<std::vector<size_t>, std::vector<size_t>>> members;
  std::vector<std::string> type_order;
  auto add = [&](const Profile& p, bool side_b) {
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      auto [it, added] = members.try_emplace(p.nodes[i].op_type);
      if (added) type_order.push_back(p.nodes[i].op_type);
      (side_b ? it->second.second : it->second.first).push_back(i);
    }
  };
  add(a, false);
  add(b, true);
  for (const std::string& type : type_order) {
    const auto& [in_a, in_b] = members[type];
    d.types.push_back(
        {type, in_a.size(), in_b.size(),
         compare_samples(per_iteration_sum(a, in_a), per_iteration_sum(b, in_b), options)});
  }
  return d;
}

// On a narrow terminal the verdict, its change and the node's name stay; the interval, then the
// medians, then the counts and types go first.
std::vector<Column> diff_node_columns(const std::string& ci_header) {
  return {{"#"},
          {"node", Align::kLeft, 0, true},
          {"type", Align::kLeft, 4},
          {"A ms", Align::kRight, 3},
          {"B ms", Align::kRight, 3},
          {"Δ ms", Align::kRight, 1, false, "delta_ms"},
          {"change"},
          {ci_header, Align::kRight, 2, false, "ci"},
          {"verdict", Align::kLeft}};
}

std::vector<Column> diff_type_columns(const std::string& ci_header) {
  return {{"type", Align::kLeft},
          {"nodes A", Align::kRight, 4},
          {"nodes B", Align::kRight, 4},
          {"A ms", Align::kRight, 3},
          {"B ms", Align::kRight, 3},
          {"Δ ms", Align::kRight, 1, false, "delta_ms"},
          {"change"},
          {ci_header, Align::kRight, 2, false, "ci"},
          {"verdict", Align::kLeft}};
}

void check_diff_column_names(const std::vector<std::string>& names) {
  check_column_names(names, {diff_node_columns("CI"), diff_type_columns("CI")});
}

std::string render_diff(const ProfileDiff& d, const std::string& label_a,
                        const std::string& label_b, const ViewOptions& options) {
  check_diff_column_names(options.columns);
  const size_t width = fit_options(options).width;
  std::string out;
  out += labelled("A (base)", label_a + ": " + d.about_a, width);
  out += labelled("B", label_b + ": " + d.about_b, width);
  for (const std::string& note : d.notes) out += labelled("note", note, width);
  out += whole_line("whole run", d.whole, d.confidence, width);
  if (d.whole_unprofiled.median_a > 0 && d.whole_unprofiled.median_b > 0)
    out += whole_line("unprofiled", d.whole_unprofiled, d.confidence, width);

  // Nodes, by the size of the change in median time.
  const NodeFilter filter(options);
  std::vector<const NodeChange*> rows;
  for (const NodeChange& c : d.nodes)
    if (filter.keep(c.name, c.op_type, std::max(c.estimate.median_a, c.estimate.median_b)))
      rows.push_back(&c);
  auto delta = [](const RatioEstimate& e) { return std::fabs(e.median_b - e.median_a); };
  std::stable_sort(rows.begin(), rows.end(), [&](const NodeChange* x, const NodeChange* y) {
    return delta(x->estimate) > delta(y->estimate);
  });
  size_t counts[4] = {0, 0, 0, 0};
  size_t only_a = 0, only_b = 0;
  for (const NodeChange* c : rows) {
    if (c->in_a && c->in_b) ++counts[int(c->estimate.verdict)];
    only_a += !c->in_b;
    only_b += !c->in_a;
  }
  const size_t selected = rows.size();
  if (options.top > 0 && rows.size() > size_t(options.top)) rows.resize(size_t(options.top));
  const std::string ci_header = fmt::format("{:.0f}% CI", d.confidence * 100);
  Table nodes(diff_node_columns(ci_header));
  for (size_t i = 0; i < rows.size(); ++i) {
    const NodeChange& c = *rows[i];
    const RatioEstimate& e = c.estimate;
    const bool both = c.in_a && c.in_b;
    nodes.add_row({fmt::format("{}", i + 1), c.name, c.op_type,
                   c.in_a ? milliseconds(e.median_a) : "-", c.in_b ? milliseconds(e.median_b) : "-",
                   signed_ms(e.median_b - e.median_a), both ? change_pct(e.ratio) : "-",
                   both ? interval(e) : "-",
                   both     ? verdict_name(e.verdict)
                   : c.in_a ? "only in A"
                            : "only in B"});
  }
  out += fmt::format("\nnodes by change in median time: {} of {} {}\n", rows.size(), selected,
                     selected == 1 ? "node" : "nodes");
  out += nodes.render(fit_options(options));
  const size_t compared = counts[0] + counts[1] + counts[2];
  out += labelled("verdicts",
                  fmt::format("{} faster, {} slower, {} no significant change, {} too few "
                              "samples; {} only in A, {} only in B",
                              counts[int(Verdict::kFaster)], counts[int(Verdict::kSlower)],
                              counts[int(Verdict::kNoChange)], counts[int(Verdict::kTooFewSamples)],
                              only_a, only_b),
                  width);
  if (compared > 0)
    out += labelled("",
                    fmt::format("a change counts when its {:.0f}% interval lies beyond ±{:.1f}%; "
                                "at most about {:.1f} of these {} comparisons would count by "
                                "chance alone",
                                d.confidence * 100, d.min_change * 100,
                                (1 - d.confidence) * double(compared), compared),
                    width);

  // Types, by the size of the change in their per-iteration time.
  std::vector<const TypeChange*> types;
  for (const TypeChange& t : d.types)
    if (options.types.empty() ||
        std::find(options.types.begin(), options.types.end(), t.op_type) != options.types.end())
      types.push_back(&t);
  std::stable_sort(types.begin(), types.end(), [&](const TypeChange* x, const TypeChange* y) {
    return delta(x->estimate) > delta(y->estimate);
  });
  Table type_table(diff_type_columns(ci_header));
  for (const TypeChange* t : types) {
    const RatioEstimate& e = t->estimate;
    const bool both = t->nodes_a > 0 && t->nodes_b > 0;
    type_table.add_row({t->op_type, fmt::format("{}", t->nodes_a), fmt::format("{}", t->nodes_b),
                        t->nodes_a ? milliseconds(e.median_a) : "-",
                        t->nodes_b ? milliseconds(e.median_b) : "-",
                        signed_ms(e.median_b - e.median_a), both ? change_pct(e.ratio) : "-",
                        both ? interval(e) : "-",
                        both         ? verdict_name(e.verdict)
                        : t->nodes_a ? "only in A"
                                     : "only in B"});
  }
  out += fmt::format("\nop types by change in median time per iteration: {}\n", types.size());
  out += type_table.render(fit_options(options));
  return out;
}

}  // namespace strata::report
