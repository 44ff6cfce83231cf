// strata/machine.h: the profiler's machine measurements behind the public API.
#include "strata/machine.h"

#include "profiler/machine.h"

namespace strata {

std::string cpu_model() {
  return profiler::cpu_model();
}
int logical_cpus() {
  return profiler::logical_cpus();
}
std::string default_machine_cache_path() {
  return profiler::default_machine_cache_path();
}

MachinePeaks machine_peaks(int threads, const MachineOptions& options) {
  profiler::MachineCacheOptions cache;
  cache.path = options.cache_path;
  cache.refresh = options.refresh;
  cache.warn = options.warn;
  cache.progress = options.progress;
  const profiler::MachineInfo m = profiler::machine_peaks(threads, cache);
  MachinePeaks out;
  out.gflops = m.peak_gflops;
  out.int8_gops = m.peak_int8_gops;
  out.gbps = m.peak_gbps;
  out.isa = m.isa;
  out.int8_isa = m.int8_isa;
  out.measured = m.peaks_source == "measured";
  return out;
}

}  // namespace strata
