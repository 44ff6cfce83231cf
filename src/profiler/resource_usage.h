// CPU and memory use of the process and the machine, read around a measured phase.
#pragma once

#include <cstdint>

namespace strata::profiler {

// A reading of the clocks CPU utilisation is computed from.
struct UsageReading {
  int64_t wall_ns = 0;
  double process_cpu_s = 0;  // user + system time of every thread of the process
  // Jiffies summed over all cores from /proc/stat; both -1 when it cannot be read.
  int64_t system_busy = -1, system_total = -1;
};

UsageReading read_usage();

// Process CPU time over wall time between two readings, % (100 = one core busy throughout).
double process_cpu_pct(const UsageReading& from, const UsageReading& to);
// Busy share of the machine's cores between two readings, % (0-100); -1 when unknown.
double system_cpu_pct(const UsageReading& from, const UsageReading& to);

// The process's peak resident set size so far (bytes).
int64_t peak_rss_bytes();

}  // namespace strata::profiler
