#include "report/node_figures.h"

namespace strata::report {

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kUnknown: break;
  }
  return "-";
}

NodeFigures node_figures(const profiler::NodeProfile& node, const profiler::MachineInfo& machine) {
  NodeFigures f;
  f.time = profiler::summarize(node.samples_ms);
  for (double ms : node.samples_ms) f.total_ms += ms;
  if (!node.has_cost) return f;
  f.bytes = node.bytes_read + node.bytes_written;
  const double seconds = f.time.median * 1e-3;
  if (seconds <= 0) return f;
  f.gflops = node.flops / seconds * 1e-9;
  f.gbps = f.bytes / seconds * 1e-9;
  if (machine.peak_gflops <= 0 || machine.peak_gbps <= 0) return f;
  if (node.flops <= 0 && f.bytes <= 0) return f;
  const double balance = machine.peak_gflops / machine.peak_gbps;  // FLOPs per byte
  const bool compute = f.bytes <= 0 || node.flops / f.bytes >= balance;
  f.bound = compute ? Bound::kCompute : Bound::kMemory;
  f.pct_of_peak = compute ? 100 * f.gflops / machine.peak_gflops : 100 * f.gbps / machine.peak_gbps;
  return f;
}

RunFigures run_figures(const profiler::Profile& profile) {
  RunFigures r;
  r.latency = profiler::summarize(profile.iterations_ms);
  r.unprofiled = profiler::summarize(profile.unprofiled_ms);
  for (double ms : profile.iterations_ms) r.total_ms += ms;
  r.throughput_per_s = r.latency.median > 0 ? 1000 / r.latency.median : 0;
  for (const profiler::NodeProfile& node : profile.nodes) {
    if (is_user_scope(node)) continue;
    const profiler::Summary s = profiler::summarize(node.samples_ms);
    r.sum_node_medians_ms += s.median;
    for (double ms : node.samples_ms) r.nodes_total_ms += ms;
  }
  r.outside_operators_ms = r.latency.median - r.sum_node_medians_ms;
  r.first_vs_median = r.latency.median > 0 ? profile.first_iteration_ms / r.latency.median : 0;
  return r;
}

}  // namespace strata::report
