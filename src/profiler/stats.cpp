#include "profiler/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace strata::profiler {

namespace {
constexpr double kHighCv = 0.10;  // above 10% spread the median moves between runs
constexpr size_t kFewSamples = 5;
}  // namespace

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q / 100.0 * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - double(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::vector<double> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = percentile_sorted(samples, 50);
  s.p90 = percentile_sorted(samples, 90);
  s.p99 = percentile_sorted(samples, 99);
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / double(samples.size());
  if (samples.size() > 1) {
    double sq = 0;
    for (double x : samples) sq += (x - s.mean) * (x - s.mean);
    s.sd = std::sqrt(sq / double(samples.size() - 1));
  }
  s.cv = s.mean > 0 ? s.sd / s.mean : 0;
  return s;
}

std::string stability_warning(const Summary& s) {
  if (s.count == 0) return "";
  if (s.count < kFewSamples)
    return fmt::format("only {} iterations: too few for stable statistics (use --iter 20 or more)",
                       s.count);
  if (s.cv > kHighCv)
    return fmt::format(
        "the spread is high (CV {:.1f}%): the machine is noisy or the run too short; "
        "compare medians and repeat",
        s.cv * 100);
  if (s.max > kOutlierFactor * s.median)
    return fmt::format("outliers: the slowest iteration took {:.1f}x the median", s.max / s.median);
  return "";
}

}  // namespace strata::profiler
