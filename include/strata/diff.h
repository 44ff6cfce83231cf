// strata::diff_profiles: did profile B get faster or slower than the baseline A, beyond the noise?
// Whole run, per node and per op type, each with a bootstrap confidence interval of the ratio of
// medians (`strata diff`, docs/profiling.md).
//
//   strata::ProfileDiff d = strata::diff_profiles(strata::Profile::load("a.json"),
//                                                 strata::Profile::load("b.json"));
//   std::printf("%.3f ms -> %.3f ms: %s\n", d.whole().median_a_ms, d.whole().median_b_ms,
//               d.whole().verdict.c_str());
//   std::fputs(d.render().c_str(), stdout);  // the tables `strata diff` prints
//   d.save_html("diff.html");                // the page `strata diff --html` writes
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/profile.h"
#include "strata/views.h"

namespace strata {

struct DiffOptions {
  double confidence = 0.95;  // of the bootstrap intervals
  double min_change = 0.02;  // smallest relative change called faster or slower
  int resamples = 2000;      // bootstrap resamples (the seed is fixed: same files, same verdict)
  // How the two profiles are named in the text and the HTML page (`strata diff` gives the paths).
  std::string label_a = "A", label_b = "B";
};

// median(B) / median(A) with its confidence interval.
struct DiffEstimate {
  double median_a_ms = 0, median_b_ms = 0;
  double ratio = 1, low = 1, high = 1;
  // "faster", "slower", "no significant change" or "too few samples"
  std::string verdict;
};

struct NodeDiff {
  std::string name, op_type;
  bool in_a = false, in_b = false;  // a node of one profile only has medians but no interval
  DiffEstimate estimate;
};

class ProfileDiff {
 public:
  const DiffEstimate& whole() const;              // the profiled iterations
  const std::vector<NodeDiff>& nodes() const;     // A's nodes in execution order, then B's new ones
  const std::vector<std::string>& notes() const;  // why the comparison may be unfair
  // The text `strata diff` prints; `view` filters nodes (types, min_time_ms, name_regex), cuts the
  // node table (top) and fits the tables (width, columns, wide).
  std::string render(const ViewOptions& view = {}) const;
  // The self-contained HTML page `strata diff --html` writes; save_html throws strata::Error naming
  // the path when it cannot be written.
  std::string html() const;
  void save_html(const std::string& path) const;

  struct Impl;  // the library's own (src/api/diff.cpp)
  explicit ProfileDiff(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<const Impl> impl_;
};

// Nodes are matched by name and op type. Throws strata::Error for options out of range.
ProfileDiff diff_profiles(const Profile& a, const Profile& b, const DiffOptions& options = {});

}  // namespace strata
