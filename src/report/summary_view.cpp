// The summary block of a measured profile.
#include <fmt/format.h>

#include <algorithm>

#include "profiler/resource_usage.h"
#include "profiler/slow_paths.h"
#include "report/node_figures.h"
#include "report/terminal.h"
#include "report/units.h"
#include "report/views.h"

namespace strata::report {

namespace {

constexpr size_t kHashShown = 12;           // enough hex digits to tell models apart
constexpr double kOverheadBudgetPct = 2.0;  // the profiler promises at most this on the median

std::string line(const char* label, const std::string& text) {
  return fmt::format("{:<12}{}\n", label, text);
}

// "1 thread", "2 threads".
std::string count(int64_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// " (--duration 2 s)" when the options record says the iterations ran for a time, else "".
std::string duration_note(const std::string& options) {
  const std::string flag = "--duration ";
  const size_t at = options.find(flag);
  if (at == std::string::npos) return "";
  const size_t from = at + flag.size();
  return fmt::format(" (--duration {} s)", options.substr(from, options.find(' ', from) - from));
}

std::string latency_text(const profiler::Summary& s) {
  return fmt::format("min {}  median {}  mean {}  sd {}  p90 {}  p99 {}  max {} ms  CV {:.1f}%",
                     milliseconds(s.min), milliseconds(s.median), milliseconds(s.mean),
                     milliseconds(s.sd), milliseconds(s.p90), milliseconds(s.p99),
                     milliseconds(s.max), s.cv * 100);
}

// A sample this many times its node's median (and at least kOutlierMinMs longer) is not the node's
// own cost: on a shared machine it is the thread waiting for a CPU, or an interrupt.
constexpr double kOutlierFactor = 10;
constexpr double kOutlierMinMs = 0.5;

// Measured (the planner's arena) beside predicted (the analyzer's largest live set).
std::string activation_memory_text(const profiler::Profile& p) {
  std::string text = "arena " + (p.arena_bytes > 0 ? human_bytes(double(p.arena_bytes)) : "-") +
                     " (planned by the session)";
  if (p.predicted_peak_activation_bytes >= 0)
    text += ", largest live set " + human_bytes(p.predicted_peak_activation_bytes) +
            " (predicted by strata analyze, inputs included)";
  return text;
}

struct OutlierCount {
  size_t samples = 0, nodes = 0;
};

OutlierCount count_outliers(const profiler::Profile& p) {
  OutlierCount c;
  for (const profiler::NodeProfile& n : p.nodes) {
    if (is_user_scope(n) || n.samples_ms.empty()) continue;
    const double median = profiler::summarize(n.samples_ms).median;
    const size_t k = size_t(std::count_if(n.samples_ms.begin(), n.samples_ms.end(), [&](double t) {
      return t > kOutlierFactor * median && t - median > kOutlierMinMs;
    }));
    c.samples += k;
    c.nodes += k > 0;
  }
  return c;
}

}  // namespace

std::string render_summary(const profiler::Profile& p, bool colour) {
  const RunFigures run = run_figures(p);
  std::string out;
  std::string model = p.model;
  if (!p.model_sha256.empty())
    model += fmt::format(" (sha256 {})", p.model_sha256.substr(0, kHashShown));
  out += line("model", model);
  out += line("profile", fmt::format("strata {}{}", p.strata_version,
                                     p.created.empty() ? "" : ", " + p.created));
  std::string machine =
      fmt::format("{}, {} logical CPUs", p.machine.cpu.empty() ? "unknown CPU" : p.machine.cpu,
                  p.machine.logical_cpus);
  if (p.machine.peak_gflops > 0 && p.machine.peak_gbps > 0) {
    machine +=
        fmt::format("; peaks at {}: {:.1f} GFLOP/s FP32{}, {:.1f} GB/s ({})",
                    count(p.threads, "thread"), p.machine.peak_gflops,
                    p.machine.isa.empty() ? "" : " " + p.machine.isa, p.machine.peak_gbps,
                    p.machine.peaks_source.empty() ? "source unknown" : p.machine.peaks_source);
    if (p.machine.peak_int8_gops > 0)
      machine += fmt::format("; int8 {:.1f} GOP/s{}", p.machine.peak_int8_gops,
                             p.machine.int8_isa.empty() ? "" : " " + p.machine.int8_isa);
  } else {
    machine += "; peaks unknown (no roofline)";
  }
  out += line("machine", machine);
  out += line("run", fmt::format("{}, {} warm-up, {} iterations{}; load {} ms, prepare {} ms",
                                 count(p.threads, "thread"), p.warmup, p.iterations_ms.size(),
                                 duration_note(p.options), milliseconds(p.load_ms),
                                 milliseconds(p.prepare_ms)));
  out += line("latency", latency_text(run.latency));
  if (run.unprofiled.count > 0)
    out += line("unprofiled", latency_text(run.unprofiled) +
                                  fmt::format("; profiling overhead {:+.1f}%", p.overhead_pct));
  out += line("throughput",
              fmt::format("{:.1f} inferences/s (from the median)", run.throughput_per_s));
  const std::string process = p.process_cpu_pct >= 0
                                  ? fmt::format("{:.0f}% (100% = one CPU busy)", p.process_cpu_pct)
                                  : "unknown";
  const std::string system =
      p.system_cpu_pct >= 0
          ? fmt::format("{:.0f}% of {} CPUs", p.system_cpu_pct, p.machine.logical_cpus)
          : "unknown";
  out += line("cpu", fmt::format("process {}, system {}", process, system));
  if (p.peak_rss_bytes > 0)
    out +=
        line("memory", "peak RSS " + human_bytes(double(p.peak_rss_bytes)) +
                           (p.heap_counted ? "" : "; heap allocations not counted in this build"));
  if (p.arena_bytes > 0 || p.predicted_peak_activation_bytes >= 0)
    out += line("activations", activation_memory_text(p));
  const size_t scopes = size_t(std::count_if(p.nodes.begin(), p.nodes.end(), is_user_scope));
  out += line("nodes", count(int64_t(p.nodes.size() - scopes), "graph node") +
                           (scopes ? ", " + count(int64_t(scopes), "user scope") : ""));
  const double outside_pct =
      run.latency.median > 0 ? 100 * run.outside_operators_ms / run.latency.median : 0;
  out += line("parts", fmt::format("sum of node medians {} ms + outside operators {} ms ({:.1f}%) "
                                   "= whole-run median {} ms",
                                   milliseconds(run.sum_node_medians_ms),
                                   milliseconds(run.outside_operators_ms), outside_pct,
                                   milliseconds(run.latency.median)));
  if (p.first_iteration_ms > 0 && run.latency.median > 0)
    out += line("first run", fmt::format("{} ms cold vs {} ms steady-state median ({:.2f}x)",
                                         milliseconds(p.first_iteration_ms),
                                         milliseconds(run.latency.median), run.first_vs_median));
  std::vector<std::string> warnings;
  if (const std::string w = profiler::stability_warning(run.latency); !w.empty())
    warnings.push_back(w);
  if (run.unprofiled.count > 0 && p.overhead_pct > kOverheadBudgetPct)
    warnings.push_back(
        fmt::format("the profiling overhead ({:.1f}%) is above {:.0f}%: per-node "
                    "times include it",
                    p.overhead_pct, kOverheadBudgetPct));
  // Above 100% of a roof: for FLOP/s the measured peak is too low; for bandwidth the data came
  // from caches, which are faster than the memory the triad measures.
  // A Winograd convolution's effective FLOP/s may pass the peak by design.
  int64_t above_compute = 0, above_memory = 0, above_effective = 0;
  for (const profiler::NodeProfile& n : p.nodes) {
    const NodeFigures f = node_figures(n, p.machine);
    if (f.pct_of_peak <= 100) continue;
    if (f.bound == Bound::kMemory)
      ++above_memory;
    else
      ++(counts_effective_flops(n) ? above_effective : above_compute);
  }
  if (above_compute > 0)
    warnings.push_back(
        fmt::format("{} ran above the measured FLOP/s peak: the peak is too low "
                    "(measured on a busy machine or at a lower clock?); run "
                    "strata machine --refresh on an idle machine",
                    count(above_compute, "compute-bound node")));
  const OutlierCount outliers = count_outliers(p);
  if (outliers.samples > 0)
    warnings.push_back(fmt::format(
        "{} of {} took over {:.0f}x their node's median (the thread was likely preempted): they "
        "weigh in totals, means and %total, not in medians",
        count(int64_t(outliers.samples), "sample"), count(int64_t(outliers.nodes), "node"),
        kOutlierFactor));
  if (run.outside_operators_ms < 0)
    warnings.push_back(
        "the node medians add up to more than the whole-run median (medians of "
        "parts need not add up; compare totals)");
  if (std::string w = profiler::contention_warning(p.threads, p.machine.logical_cpus,
                                                   p.process_cpu_pct, p.system_cpu_pct);
      !w.empty())
    warnings.push_back(std::move(w));
  for (std::string& w : profiler::slow_path_warnings(p)) warnings.push_back(std::move(w));
  for (const std::string& w : warnings)
    out += warning_style("warning", colour) + "     " + w + "\n";  // as line("warning", w)
  if (above_memory > 0)
    out += line("note", fmt::format("{} moved data faster than the measured memory bandwidth: "
                                    "their tensors were in cache (%peak is against main memory)",
                                    count(above_memory, "memory-bound node")));
  if (above_effective > 0)
    out += line("note", fmt::format("{} ran above the FLOP/s peak: Winograd convolutions do fewer "
                                    "multiplications than the direct FLOPs counted (effective "
                                    "rate)",
                                    count(above_effective, "node")));
  return out;
}

}  // namespace strata::report
