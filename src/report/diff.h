// Comparing two measured profiles (A, the baseline, and B): whole run, per node and per op type,
// with a verdict that accounts for noise. The verdict comes from a bootstrap confidence interval of
// the ratio of medians, median(B) / median(A), from the per-iteration samples: B is faster when the
// whole interval lies below 1 - min_change, slower when it lies above 1 + min_change, else there is
// no significant change. The margin is there because the interval only knows the noise within each
// run: two profiles of the same model differ by a percent or two from run to run (clock, caches,
// other processes), which the samples of one run cannot show.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/profile.h"
#include "report/table.h"
#include "report/view_options.h"

namespace strata::report {

struct BootstrapOptions {
  double confidence = 0.95;
  int resamples = 2000;
  uint64_t seed = 0x5EED;    // fixed: the same files always give the same verdict
  double min_change = 0.02;  // smallest relative change called faster or slower
};

enum class Verdict { kFaster, kSlower, kNoChange, kTooFewSamples };
const char* verdict_name(Verdict v);  // "faster", "slower", "no significant change", ...

// Fewer samples than this on either side give no verdict.
inline constexpr size_t kMinDiffSamples = 5;

struct RatioEstimate {
  double median_a = 0, median_b = 0;
  double ratio = 1;          // median_b / median_a
  double low = 1, high = 1;  // confidence interval of the ratio
  Verdict verdict = Verdict::kTooFewSamples;
};

// Resamples A and B independently with replacement (percentile bootstrap).
RatioEstimate compare_samples(const std::vector<double>& a, const std::vector<double>& b,
                              const BootstrapOptions& options = {});

struct NodeChange {
  std::string name, op_type;
  bool in_a = false, in_b = false;  // a node of one profile only has no estimate
  RatioEstimate estimate;           // medians are filled even for one-sided nodes
};

struct TypeChange {
  std::string op_type;
  size_t nodes_a = 0, nodes_b = 0;
  RatioEstimate estimate;  // of the per-iteration sums over the type's nodes
};

struct ProfileDiff {
  RatioEstimate whole;             // profiled iterations
  RatioEstimate whole_unprofiled;  // iterations without hooks (too few samples when absent)
  std::vector<NodeChange> nodes;   // A's nodes in execution order, then B's new nodes
  std::vector<TypeChange> types;
  std::string about_a, about_b;    // "model.onnx, 20 iterations, 2 threads, CPU"
  std::vector<std::string> notes;  // why the comparison may be unfair (other model, machine...)
  double confidence = 0.95;
  double min_change = 0.02;
};

// Nodes are matched by name and op type (the k-th node of a name in A with the k-th in B).
ProfileDiff diff_profiles(const profiler::Profile& a, const profiler::Profile& b,
                          const BootstrapOptions& options = {});

// The columns of the node and type tables of render_diff ("95% CI" as `ci_header`); --columns
// names them by key (delta_ms and ci for "Δ ms" and the interval).
std::vector<Column> diff_node_columns(const std::string& ci_header);
std::vector<Column> diff_type_columns(const std::string& ci_header);
// Fails (exit 2) naming a --columns name that neither table of render_diff has.
void check_diff_column_names(const std::vector<std::string>& names);

// The comparison as text. Node and type rows go by the size of the change in time, largest first;
// the view options filter nodes (--type, --name, --min-time on the larger median), cut the node
// table (--top) and fit both tables (width, --columns, --wide).
std::string render_diff(const ProfileDiff& diff, const std::string& label_a,
                        const std::string& label_b, const ViewOptions& options);

}  // namespace strata::report
