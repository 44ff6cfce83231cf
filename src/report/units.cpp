#include "report/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace strata::report {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} {}", bytes, units[u])
                : fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string si_count(double count) {
  const char* prefixes[] = {"", " k", " M", " G", " T", " P"};
  int p = 0;
  while (std::fabs(count) >= 1000 && p < 5) {
    count /= 1000;
    ++p;
  }
  return p == 0 ? fmt::format("{:.0f}", count) : fmt::format("{:.2f}{}", count, prefixes[p]);
}

std::string fixed(double value, int decimals) {
  return fmt::format("{:.{}f}", value, decimals);
}

std::string milliseconds(double ms) {
  // Three decimals (microseconds), more for small values so that they keep three significant
  // digits: sub-microsecond nodes of small models would otherwise all read 0.000.
  constexpr int kMinDecimals = 3, kMaxDecimals = 6, kSignificant = 3;
  int decimals = kMinDecimals;
  constexpr double kResolution = 0.5e-6;  // rounds to zero at six decimals: print as zero
  if (std::fabs(ms) >= kResolution && std::isfinite(ms))
    decimals = std::clamp(kSignificant - 1 - int(std::floor(std::log10(std::fabs(ms)))),
                          kMinDecimals, kMaxDecimals);
  return fixed(ms, decimals);
}

std::string percent(double ratio_pct) {
  return ratio_pct < 0 ? "-" : fmt::format("{:.1f}%", ratio_pct);
}

}  // namespace strata::report
