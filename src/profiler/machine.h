// This machine's limits, measured: peak FP32 FLOP/s (an FMA loop) and memory bandwidth (a stream
// triad), per thread count. They are the roofs of the roofline that classifies each profiled node
// as compute- or memory-bound. Measurements are cached in a JSON file keyed by CPU model and thread
// count, so profiles use them without re-measuring.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "core/progress.h"
#include "profiler/profile.h"

namespace strata::profiler {

std::string cpu_model();  // "AMD EPYC 7B13" from /proc/cpuinfo; "unknown CPU" when absent
int logical_cpus();

// Versions of the libraries strata was built with ("fmt" → "10.1.1", ...).
std::map<std::string, std::string> library_versions();

struct FlopsMeasurement {
  double gflops = 0;
  std::string isa;  // "avx512f", "avx2+fma" or "scalar": the widest the CPU supports
};

// Peak FP32 FLOP/s with `threads` OpenMP threads: each thread runs independent chains of fused
// multiply-adds in registers; the fastest of runs of about 1 ms repeated for `seconds`.
FlopsMeasurement measure_peak_gflops(int threads, double seconds = 0.2);

// Peak int8 operations per second (2 per multiply-add) the same way, with the int8 dot products
// oneDNN's int8 kernels use: AVX-512 VNNI where the CPU has it ("avx512_vnni"), else the
// multiply-add pairs of AVX-512BW or AVX2, else scalar code.
FlopsMeasurement measure_peak_int8_gops(int threads, double seconds = 0.2);

// Memory bandwidth with `threads` threads: the fastest of `repetitions` stream triads
// a = b + s * c over arrays four times the last-level cache (at least 64 MiB each), counting
// 3 * 4 bytes per element (two reads and a write, as STREAM does).
double measure_bandwidth_gbps(int threads, int repetitions = 5);

struct MachineCacheOptions {
  std::string path;      // "" → default_machine_cache_path()
  bool refresh = false;  // measure even when the cache holds the figures (and update the cache)
  // Called with a warning (corrupt or foreign cache, cache not writable); nullptr: ignored.
  std::function<void(const std::string&)> warn;
  // Told before each measurement ("machine peaks", done of 3) and after the last: between the
  // timed loops, never inside one.
  ProgressFn progress;
};

// $STRATA_MACHINE_CACHE, else $XDG_CACHE_HOME/strata/machine.json, else
// ~/.cache/strata/machine.json.
std::string default_machine_cache_path();

// This machine's peaks for `threads` threads: from the cache when it holds them for this CPU model
// and thread count, else measured (about 1 s) and stored. peaks_source says which.
MachineInfo machine_peaks(int threads, const MachineCacheOptions& options = {});

}  // namespace strata::profiler
