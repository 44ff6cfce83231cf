#include "report/node_figures.h"

#include <fmt/format.h>

namespace strata::report {

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kUnknown: break;
  }
  return "-";
}

bool is_int8_product(const std::string& op_type) {
  return op_type == "ConvInteger" || op_type == "QLinearConv" || op_type == "MatMulInteger" ||
         op_type == "QLinearMatMul" || op_type == "QLinearGemm" ||
         op_type == "MatMulIntegerToFloat";
}

NodeFigures node_figures(const profiler::NodeProfile& node, const profiler::MachineInfo& machine) {
  NodeFigures f;
  f.time = profiler::summarize(node.samples_ms);
  for (double ms : node.samples_ms) f.total_ms += ms;
  f.calls = int64_t(f.time.count);
  if (!node.calls_per_iteration.empty()) {
    f.calls = 0;
    for (int c : node.calls_per_iteration) f.calls += c;
  }
  f.calls_per_inference = f.time.count ? double(f.calls) / double(f.time.count) : 0;
  if (!node.has_cost) return f;
  f.bytes = node.bytes_read + node.bytes_written;
  const double seconds = f.time.median * 1e-3;
  if (seconds <= 0) return f;
  f.gflops = node.flops / seconds * 1e-9;
  f.gbps = f.bytes / seconds * 1e-9;
  // Integer products are measured against the int8 peak, the rest against the FP32 one.
  const double peak = is_int8_product(node.op_type) ? machine.peak_int8_gops : machine.peak_gflops;
  if (peak <= 0 || machine.peak_gbps <= 0) return f;
  if (node.flops <= 0 && f.bytes <= 0) return f;
  const double balance = peak / machine.peak_gbps;  // operations per byte
  const bool compute = f.bytes <= 0 || node.flops / f.bytes >= balance;
  f.bound = compute ? Bound::kCompute : Bound::kMemory;
  f.pct_of_peak = compute ? 100 * f.gflops / peak : 100 * f.gbps / machine.peak_gbps;
  return f;
}

std::string calls_text(const NodeFigures& f) {
  if (f.calls == int64_t(f.time.count)) return fmt::format("{}", f.calls);
  return fmt::format("{} ({:.3g}/inf)", f.calls, f.calls_per_inference);
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
