// Figures derived from a measured profile: per-node time statistics, achieved throughput and the
// roofline verdict, and the whole-run reconciliation of parts and whole. Computed the same way for
// the JSON file, the tables and the diff.
#pragma once

#include <string>

#include "profiler/profile.h"
#include "profiler/stats.h"

namespace strata::report {

enum class Bound { kUnknown, kCompute, kMemory };
const char* bound_name(Bound b);  // "compute", "memory", "-"

struct NodeFigures {
  profiler::Summary time;  // of the node's samples (ms; per inference)
  double total_ms = 0;     // sum of its samples
  // Calls over the timed iterations, and per inference: one per iteration, except for a node
  // inside a subgraph (a Loop body's node runs once per loop iteration; a branch's may not run).
  int64_t calls = 0;
  double calls_per_inference = 0;
  double bytes = 0;  // bytes read + written by one execution
  // Achieved at the median time; -1 when the node has no cost rule or no measurable time.
  double gflops = -1, gbps = -1;
  // Roofline with the machine's measured peaks: the node is compute-bound when its arithmetic
  // intensity (FLOPs per byte) reaches the machine balance (peak FLOP/s / peak bytes/s), else
  // memory-bound; pct_of_peak is the achieved share of the bounding peak (-1 when unknown).
  Bound bound = Bound::kUnknown;
  double pct_of_peak = -1;
};

NodeFigures node_figures(const profiler::NodeProfile& node, const profiler::MachineInfo& machine);

// The calls column of the tables: "20", or "60 (3/inf)" for a node called other than once per
// inference.
std::string calls_text(const NodeFigures& f);

// Whether an op multiplies int8 operands (its GFLOP/s are int8 operations, its %peak against
// the machine's int8 peak).
bool is_int8_product(const std::string& op_type);

// Whether the node's kernel does fewer multiplications than its cost rule counts (a Winograd
// convolution): its FLOP/s are then effective, the direct algorithm's FLOPs over its time, and may
// exceed the machine's peak without the peak being wrong.
inline bool counts_effective_flops(const profiler::NodeProfile& node) {
  return node.kernel.find("wino") != std::string::npos;
}

// Scope rows (op_type "scope": user code timed with the scoped-timer API) are not graph nodes:
// they are left out of the parts-and-whole reconciliation.
inline bool is_user_scope(const profiler::NodeProfile& node) {
  return node.op_type == "scope";
}

struct RunFigures {
  profiler::Summary latency;     // profiled iterations (ms)
  profiler::Summary unprofiled;  // iterations without hooks (ms); count 0 when not measured
  double total_ms = 0;           // sum of the profiled iterations
  double throughput_per_s = 0;   // from the profiled median
  // Parts and whole: the sum of the graph nodes' medians beside the whole-run median; the
  // difference is time spent outside operators (dispatch, allocation, hooks).
  double sum_node_medians_ms = 0;
  double outside_operators_ms = 0;
  double nodes_total_ms = 0;  // sum of every graph node's samples (for "% of total")
  // First (cold) inference against the steady-state median, whole run.
  double first_vs_median = 0;  // first_iteration_ms / latency.median (0 when unknown)
};

RunFigures run_figures(const profiler::Profile& profile);

}  // namespace strata::report
