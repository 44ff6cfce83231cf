// The profiler's own cost on the whole run, from profiled runs each paired with the unprofiled run
// made next to it (profile_session interleaves them). Pairing cancels the machine's slow drifts,
// which on a busy machine are larger than the overhead itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::profiler {

// (median over pairs i of profiled[i] / unprofiled[i] - 1) × 100; 0 when there is no pair.
double overhead_pct(const std::vector<double>& profiled_ms,
                    const std::vector<double>& unprofiled_ms);

struct OverheadEstimate {
  double pct = 0;                    // overhead_pct
  double low_pct = 0, high_pct = 0;  // percentile-bootstrap interval of it, over the pairs
  size_t pairs = 0;
};

// overhead_pct with a `confidence` interval from `resamples` bootstrap resamples of the pairs
// (fixed seed: the same samples always give the same interval).
OverheadEstimate estimate_overhead(const std::vector<double>& profiled_ms,
                                   const std::vector<double>& unprofiled_ms,
                                   double confidence = 0.95, int resamples = 2000);

}  // namespace strata::profiler
