// A measured profile: what `strata profile` records and writes as JSON, and what `strata report`
// and `strata diff` read back. The JSON form is documented in docs/profile-format.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace strata::profiler {

inline constexpr int kProfileSchemaVersion = 1;

// The input and output types one call of a node had (a node inside a loop may change shapes
// between calls).
struct ShapeSet {
  std::vector<std::string> inputs, outputs;
  bool operator==(const ShapeSet&) const = default;
};

// One row of the profile: an executed graph node, or a user scope (ScopedTimer). A node inside a
// subgraph (If/Loop/Scan body) is a row of its own named PARENT/LABEL/NODE ("/head/If_3/then/Add",
// LABEL "then", "else" or "body"), after its parent's row; its times are per inference, summed
// over its calls in that inference.
struct NodeProfile {
  std::string name;           // ONNX node name (or scope path for user scopes)
  std::string op_type;        // "Conv"; "scope" for user scopes
  std::string kernel;         // implementation that ran ("reference", "onednn:brgconv", ...)
  std::string kernel_reason;  // why the session chose it (fast-run: every candidate's time)
  // What its kernel's runs did that depends on the data and costs time (Kernel::run_note), or "".
  std::string run_note;
  std::string layout;  // "nchw", "nChw16c", ... ("" when not applicable)
  // "float32[1,3,224,224]"; for a node whose shapes changed between calls, their range per dim
  // ("float32[1..37,4]").
  std::vector<std::string> input_shapes;
  std::vector<std::string> output_shapes;
  // Static cost from the op's cost rule (one execution; per inference, all calls summed, for a
  // node inside a subgraph); has_cost false when the op has none.
  bool has_cost = false;
  double macs = 0, flops = 0, bytes_read = 0, bytes_written = 0;
  // Predicted by the analyzer (same rules, no data): joined for "predicted vs measured".
  double predicted_output_bytes = 0;
  // Time of this node in every timed iteration, in order (ms). Index i ↔ Profile::iterations_ms[i].
  std::vector<double> samples_ms;
  // Offset of the node's start from its iteration's start, per timed iteration (ms; for traces).
  // User scopes are not tied to iterations: theirs are offsets from the profile's time origin,
  // one per call, like their samples_ms.
  std::vector<double> start_offsets_ms;
  int thread = 0;           // thread that dispatched the node
  double first_run_ms = 0;  // its time in the very first (cold) inference
  // --isolate: median when re-timed alone on warm caches (-1: not run).
  double isolated_median_ms = -1;
  // Allocations made during one steady-state execution.
  int64_t heap_allocations = 0, heap_bytes = 0;  // operator new while the node ran
  int64_t arena_bytes = 0;                       // planned arena bytes of its outputs
  int64_t arena_live_bytes = 0;  // arena bytes live while it runs (all buffers, not just its own)

  // Control flow. A node with subgraphs: its samples_ms are its own time, without the time of its
  // bodies' nodes (their rows report it); body_ms holds that time per timed iteration (empty when
  // it has no bodies), so its whole run took samples_ms[i] + body_ms[i].
  std::vector<double> body_ms;
  // A node inside a subgraph: `parent` names the row of the node running its subgraph ("" at the
  // top level); calls_per_iteration[i] how often it ran in timed iteration i (empty: once each).
  // Then, per call in order over the timed iterations: its own time (call_ms), its start from
  // its iteration's start (call_offsets_ms), the time of its own bodies (call_body_ms, empty
  // without bodies) and which of shape_sets it had (call_shapes).
  std::string parent;
  std::vector<int> calls_per_iteration;
  std::vector<double> call_ms, call_offsets_ms, call_body_ms;
  std::vector<int> call_shapes;
  std::vector<ShapeSet> shape_sets;
  bool operator==(const NodeProfile&) const = default;
};

struct MachineInfo {
  std::string cpu;  // model name
  int logical_cpus = 0;
  double peak_gflops = 0;    // measured FP32 peak for `threads` threads (0: unknown)
  double peak_gbps = 0;      // measured memory bandwidth (stream triad)
  std::string peaks_source;  // "measured", "cache FILE", "" when unknown
  std::string isa;  // instructions of the FLOP/s measurement: "avx512f", "avx2+fma", "scalar"
  double peak_int8_gops = 0;  // measured int8 peak (2 operations per multiply-add; 0: unknown)
  std::string int8_isa;       // "avx512_vnni", "avx512bw", "avx2", "scalar"
  bool operator==(const MachineInfo&) const = default;
};

struct Profile {
  int schema_version = kProfileSchemaVersion;
  std::string strata_version;
  std::string model;  // path as given
  std::string model_sha256;
  std::string created;  // ISO 8601 UTC
  MachineInfo machine;
  std::map<std::string, std::string> libraries;  // name → version, as built (library_versions())
  int threads = 1;
  int warmup = 0;
  std::string options;  // the command line options, for the record
  double load_ms = 0, prepare_ms = 0;
  double first_iteration_ms = 0;            // the first (cold) inference, whole run
  std::vector<double> iterations_ms;        // whole-run time per timed iteration (profiled)
  std::vector<double> iteration_starts_ms;  // start of each timed iteration from the time origin
  std::vector<double> unprofiled_ms;        // whole-run time per iteration without hooks
  // (median over i of iterations_ms[i] / unprofiled_ms[i] - 1) * 100: the profiler's own cost.
  double overhead_pct = 0;
  // During the timed runs: process CPU time / wall time (100% = one core busy), and the busy share
  // of all the machine's cores (0-100%); -1 when unknown.
  double process_cpu_pct = 0;
  double system_cpu_pct = 0;
  int64_t peak_rss_bytes = 0;
  // Activation memory: the planner's arena, and the largest live set of activations the static
  // analyzer predicts for the same graph and shapes (-1: unknown). Predicted vs measured.
  int64_t arena_bytes = 0;
  double predicted_peak_activation_bytes = -1;
  bool heap_counted = true;  // false: heap allocation figures are unknown (AddressSanitizer build)
  std::vector<NodeProfile> nodes;  // in execution order; user scopes after graph nodes
  bool operator==(const Profile&) const = default;
};

}  // namespace strata::profiler
