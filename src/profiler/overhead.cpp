#include "profiler/overhead.h"

#include <algorithm>
#include <random>

#include "profiler/stats.h"

namespace strata::profiler {

namespace {

constexpr uint64_t kBootstrapSeed = 0x0EAD;

std::vector<double> paired_ratios(const std::vector<double>& profiled,
                                  const std::vector<double>& unprofiled) {
  std::vector<double> ratios;
  for (size_t i = 0; i < std::min(profiled.size(), unprofiled.size()); ++i)
    if (unprofiled[i] > 0) ratios.push_back(profiled[i] / unprofiled[i]);
  return ratios;
}

double pct_of_ratio(double ratio) {
  return (ratio - 1) * 100;
}

}  // namespace

double overhead_pct(const std::vector<double>& profiled_ms,
                    const std::vector<double>& unprofiled_ms) {
  const std::vector<double> ratios = paired_ratios(profiled_ms, unprofiled_ms);
  return ratios.empty() ? 0 : pct_of_ratio(summarize(ratios).median);
}

OverheadEstimate estimate_overhead(const std::vector<double>& profiled_ms,
                                   const std::vector<double>& unprofiled_ms, double confidence,
                                   int resamples) {
  OverheadEstimate e;
  const std::vector<double> ratios = paired_ratios(profiled_ms, unprofiled_ms);
  e.pairs = ratios.size();
  if (ratios.empty()) return e;
  e.pct = e.low_pct = e.high_pct = pct_of_ratio(summarize(ratios).median);
  if (resamples < 1) return e;
  std::mt19937_64 rng(kBootstrapSeed);
  std::uniform_int_distribution<size_t> pick(0, ratios.size() - 1);
  std::vector<double> medians, resample(ratios.size());
  medians.reserve(size_t(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (double& x : resample) x = ratios[pick(rng)];
    medians.push_back(summarize(resample).median);
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1 - confidence) / 2 * 100;
  e.low_pct = pct_of_ratio(percentile_sorted(medians, tail));
  e.high_pct = pct_of_ratio(percentile_sorted(medians, 100 - tail));
  return e;
}

}  // namespace strata::profiler
