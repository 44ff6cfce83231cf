// strata::profile: time every node of a model over many runs, as `strata profile` does (a cold
// run, warm-up runs, profiled runs interleaved with unprofiled ones to state the profiler's own
// overhead; docs/profiling.md), then read the result or save it as JSON or a Chrome trace.
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   strata::NamedArrays inputs = strata::bind_inputs(model, {});  // random inputs
//   strata::Profile p = strata::profile(model, inputs, {.iterations = 20});
//   std::printf("median %.3f ms\n", p.summary().median_ms);
//   for (const strata::NodeRecord& n : p.nodes())
//     std::printf("%-20s %-8s %.4f ms\n", n.name.c_str(), n.op_type.c_str(), n.median_ms);
//   p.save_json("tiny.profile.json");  // readable by `strata report` and `strata diff`
//   p.save_trace("tiny.trace.json");   // https://ui.perfetto.dev
//   p.save_html("tiny.html");          // the page `strata profile --html` writes
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/model.h"
#include "strata/session.h"
#include "strata/views.h"

namespace strata {

struct ProfileOptions {
  SessionOptions session;
  int warmup = 1;        // runs after the first (cold) one, not recorded
  int iterations = 20;   // profiled runs (and as many unprofiled ones)
  bool isolate = false;  // also time each node alone on warm caches
  int isolate_repeats = 10;
  // Measure (or read from the cache) the machine's peak FLOP/s and bandwidth for the roofline
  // figures; the first measurement takes a few seconds.
  bool roofline = false;
  // Above 0: profiled runs go on until this many seconds have passed instead of `iterations`.
  double duration_seconds = 0;
  // Told after each run ("first run", "warm-up", "iterations", "isolation") and of the machine's
  // measurements; `warn` hears of a machine cache that cannot be read or written.
  ProgressFn progress{};
  std::function<void(const std::string&)> warn{};
  // The options recorded in the profile (`strata profile` records its command line); "": a
  // summary of these options.
  std::string record{};
};

// Whole-model figures. Times are milliseconds over the profiled iterations.
struct ProfileSummary {
  std::string model;
  int threads = 1;
  int iterations = 0;
  double min_ms = 0, median_ms = 0, mean_ms = 0, p90_ms = 0, max_ms = 0;
  double cv = 0;                  // coefficient of variation (sd / mean)
  double first_iteration_ms = 0;  // the cold run
  double overhead_pct = 0;        // the profiler's own cost (median, percent)
  double load_ms = 0, prepare_ms = 0;
  int64_t arena_bytes = 0;
  int64_t peak_rss_bytes = 0;
};

// One row: an executed node (or a ScopedTimer scope, op_type "scope"), flat for tables.
struct NodeRecord {
  std::string name, op_type, kernel, layout;
  std::string input_shapes, output_shapes;  // "float32[1,3,32,32]; float32[8,3,3,3]"
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0;
  double share_pct = 0;            // of the summed node medians
  double first_run_ms = 0;         // in the cold run
  double isolated_median_ms = -1;  // with ProfileOptions::isolate; -1: not run
  bool has_cost = false;           // the op has a cost rule; below are 0 otherwise
  double macs = 0, flops = 0, bytes_read = 0, bytes_written = 0;
  double gflops_per_s = 0;  // flops / median time
  int64_t heap_allocations = 0, heap_bytes = 0;
};

class Profile {
 public:
  // Reads a profile written by save_json or `strata profile -o`.
  static Profile load(const std::string& path);

  ProfileSummary summary() const;
  std::vector<NodeRecord> nodes() const;  // in execution order
  std::string to_json() const;            // docs/profile-format.md, with derived figures
  std::string trace_json() const;         // Chrome Trace Event Format
  // The tables `strata profile` prints (summary, top nodes, op types, scopes), with the default
  // views or those chosen (strata/views.h), as `strata report --by/--top/...` does.
  std::string render() const;
  std::string render(const ViewOptions& view) const;
  // The self-contained HTML report `strata profile --html` writes (docs/html-report.md).
  std::string html() const;
  // Write the files; throw strata::Error naming the path when it cannot be written.
  void save_json(const std::string& path) const;
  void save_trace(const std::string& path) const;
  void save_html(const std::string& path) const;

  struct Impl;  // the library's own (src/api/profile_impl.h)
  explicit Profile(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// Profiles a prepared session that has not run yet, round-robin over `input_sets` (iteration i
// runs set i % count; the first run and the isolation run set 0), as `strata profile -i DIR`.
Profile profile(Session& session, const std::vector<NamedArrays>& input_sets,
                const ProfileOptions& options = {});

// Prepares a session for `inputs` and profiles it.
Profile profile(const Model& model, const NamedArrays& inputs, const ProfileOptions& options = {});

}  // namespace strata
