#include "profiler/resource_usage.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "profiler/tick_clock.h"

namespace strata::profiler {

namespace {

double seconds(const timeval& t) {
  return double(t.tv_sec) + double(t.tv_usec) * 1e-6;
}

// The first line of /proc/stat: "cpu user nice system idle iowait irq softirq steal ...".
// Idle and iowait are the cores' idle time; the rest is busy.
void read_proc_stat(UsageReading& r) {
  std::ifstream in("/proc/stat");
  std::string line, label;
  if (!std::getline(in, line)) return;
  std::istringstream fields(line);
  fields >> label;
  if (label != "cpu") return;
  int64_t total = 0, idle = 0, value = 0;
  for (int i = 0; fields >> value; ++i) {
    if (i >= 8) break;  // guest times are already counted in user and nice
    total += value;
    if (i == 3 || i == 4) idle += value;
  }
  r.system_total = total;
  r.system_busy = total - idle;
}

}  // namespace

UsageReading read_usage() {
  UsageReading r;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  r.process_cpu_s = seconds(u.ru_utime) + seconds(u.ru_stime);
  read_proc_stat(r);
  r.wall_ns = now_ns();
  return r;
}

double process_cpu_pct(const UsageReading& from, const UsageReading& to) {
  const double wall_s = double(to.wall_ns - from.wall_ns) * 1e-9;
  return wall_s > 0 ? (to.process_cpu_s - from.process_cpu_s) / wall_s * 100 : -1;
}

std::string contention_warning(int threads, int cpus, double process_pct, double system_pct) {
  if (process_pct < 0 || system_pct < 0 || cpus <= 0) return "";
  const double others = std::max(0.0, system_pct / 100 * cpus - process_pct / 100);
  if (others <= std::max(0, cpus - threads) + 0.5) return "";
  return fmt::format(
      "other processes kept {:.1f} of the {} CPUs busy during the timed runs while strata ran {} "
      "thread{}: steps wait for workers that are not running, so these figures are slower and "
      "noisier than on a quiet machine (use fewer --threads, or a quiet machine)",
      others, cpus, threads, threads == 1 ? "" : "s");
}

double system_cpu_pct(const UsageReading& from, const UsageReading& to) {
  if (from.system_total < 0 || to.system_total < 0) return -1;
  const int64_t total = to.system_total - from.system_total;
  return total > 0 ? double(to.system_busy - from.system_busy) / double(total) * 100 : -1;
}

int64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return int64_t(u.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace strata::profiler
