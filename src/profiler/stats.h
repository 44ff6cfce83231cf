// Summary statistics of timing samples.
#pragma once

#include <string>
#include <vector>

namespace strata::profiler {

// An iteration slower than this many times the median is an outlier (stability_warning).
inline constexpr double kOutlierFactor = 1.5;

struct Summary {
  size_t count = 0;
  double min = 0, median = 0, mean = 0, sd = 0, p90 = 0, p99 = 0, max = 0;
  double cv = 0;  // sd / mean
};

// Percentiles interpolate linearly between order statistics (numpy's default); sd is the sample
// standard deviation (n - 1). An empty sample gives a zero Summary.
Summary summarize(std::vector<double> samples);

// Percentile q in [0, 100] of sorted samples.
double percentile_sorted(const std::vector<double>& sorted, double q);

// Why a set of timings should not be trusted, or "" when it looks stable: a high coefficient of
// variation, outliers far above the median, or too few samples.
std::string stability_warning(const Summary& s);

}  // namespace strata::profiler
