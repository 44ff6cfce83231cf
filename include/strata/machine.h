// This machine's peaks, as `strata machine` measures them and the profile's roofline figures use:
// FP32 FLOP/s, int8 operations per second and memory bandwidth (stream triad) per thread count,
// measured once (about a second) and then read from a cache file.
//
//   strata::MachineOptions options;  // the default cache: ~/.cache/strata/machine.json
//   for (int t = 1; t <= strata::logical_cpus(); ++t) {
//     const strata::MachinePeaks m = strata::machine_peaks(t, options);
//     std::printf("%d threads: %.1f GFLOP/s, %.1f GB/s\n", t, m.gflops, m.gbps);
//   }
#pragma once

#include <functional>
#include <string>

#include "strata/progress.h"

namespace strata {

std::string cpu_model();  // "AMD EPYC 7B13" from /proc/cpuinfo; "unknown CPU" when absent
int logical_cpus();

struct MachineOptions {
  std::string cache_path;  // "" → default_machine_cache_path()
  bool refresh = false;    // measure even when the cache holds the figures (and update it)
  // Called with a warning (corrupt or foreign cache, cache not writable); empty: ignored.
  std::function<void(const std::string&)> warn;
  // Told before each of the three measurements ("machine peaks", done of 3) and after the last;
  // not called when the figures come from the cache.
  ProgressFn progress{};
};

// $STRATA_MACHINE_CACHE, else $XDG_CACHE_HOME/strata/machine.json, else
// ~/.cache/strata/machine.json.
std::string default_machine_cache_path();

struct MachinePeaks {
  double gflops = 0;      // FP32 peak
  double int8_gops = 0;   // int8 peak (2 operations per multiply-add)
  double gbps = 0;        // memory bandwidth
  std::string isa;        // of the FP32 measurement: "avx512f", "avx2+fma", "scalar"
  std::string int8_isa;   // "avx512_vnni", "avx512bw", "avx2", "scalar"
  bool measured = false;  // measured now, not read from the cache
};

// The peaks for `threads` threads: from the cache when it holds them for this CPU model and
// thread count, else measured and stored.
MachinePeaks machine_peaks(int threads, const MachineOptions& options = {});

}  // namespace strata
