// CPU and memory use of the process and the machine, read around a measured phase.
#pragma once

#include <cstdint>
#include <string>

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

// Why timings on `threads` threads are slower and noisier than a quiet machine would give, or "":
// when other processes kept more of the `cpus` busy, on average over the timed runs, than the run
// left free (plus half a CPU of slack). Their share is the machine's busy share less the process's
// own CPU time. A parallel step then waits for workers that are not running: a 30 ms model took
// 940 ms at 2 threads beside two compilers here.
std::string contention_warning(int threads, int cpus, double process_pct, double system_pct);

// The process's peak resident set size so far (bytes).
int64_t peak_rss_bytes();

}  // namespace strata::profiler
