// The cache of measured machine peaks: a small JSON file keyed by CPU model and thread count.
#include <fmt/format.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "io/json_cache.h"
#include "profiler/machine.h"
#include "profiler/profile_stamp.h"

namespace strata::profiler {

namespace {

using nlohmann::json;

constexpr const char* kCacheFormat = "strata-machine-cache";
constexpr int kCacheVersion = 1;
constexpr double kFlopsSeconds = 0.2;  // fastest of about 200 FMA runs of 1 ms
constexpr int kBandwidthPasses = 8;    // triads over 3 × 128 MiB here: about 0.5 s

io::JsonCacheKind cache_kind(const MachineCacheOptions& options) {
  return {kCacheFormat,
          kCacheVersion,
          "machine cache",
          "re-measuring and replacing it",
          "the peaks were measured",
          options.warn};
}

bool positive_number(const json& entry, const char* key) {
  return entry.contains(key) && entry[key].is_number() && entry[key].get<double>() > 0;
}

// The cache's entries, or none when the file is absent, corrupt or not ours; may_write says whether
// the file may be replaced (absent or corrupt caches are; another program's file or a newer
// strata's cache is left alone).
struct CacheFile {
  json entries = json::array();
  bool may_write = true;
};

CacheFile load_cache(const std::string& path, const MachineCacheOptions& options) {
  CacheFile cache;
  const io::JsonCacheFile file = io::read_json_cache(path, cache_kind(options));
  cache.may_write = file.may_write;
  if (file.body.empty()) return cache;
  const json& entries = file.body.value("machines", json());
  bool valid = entries.is_array();
  for (size_t i = 0; valid && i < entries.size(); ++i) {
    const json& e = entries[i];
    valid = e.is_object() && e.contains("cpu") && e["cpu"].is_string() && e.contains("threads") &&
            e["threads"].is_number_integer() && positive_number(e, "peak_gflops") &&
            positive_number(e, "peak_gbps");
  }
  if (!valid) {
    if (options.warn)
      options.warn(
          fmt::format("{}: the machine cache is corrupt (entries need cpu, threads, "
                      "peak_gflops and peak_gbps); ignored (re-measuring and replacing "
                      "it)",
                      path));
    return cache;
  }
  cache.entries = entries;
  return cache;
}

std::optional<MachineInfo> find_entry(const json& entries, const std::string& cpu, int threads) {
  for (const json& e : entries) {
    if (e["cpu"] != cpu || e["threads"] != threads) continue;
    MachineInfo m;
    m.peak_gflops = e["peak_gflops"].get<double>();
    m.peak_gbps = e["peak_gbps"].get<double>();
    if (e.contains("isa") && e["isa"].is_string()) m.isa = e["isa"].get<std::string>();
    // Entries written before the int8 peak was measured are measured again.
    if (!positive_number(e, "peak_int8_gops")) return std::nullopt;
    m.peak_int8_gops = e["peak_int8_gops"].get<double>();
    if (e.contains("int8_isa") && e["int8_isa"].is_string())
      m.int8_isa = e["int8_isa"].get<std::string>();
    return m;
  }
  return std::nullopt;
}

}  // namespace

std::string default_machine_cache_path() {
  if (const char* p = std::getenv("STRATA_MACHINE_CACHE"); p && *p) return p;
  if (const char* p = std::getenv("XDG_CACHE_HOME"); p && *p)
    return (std::filesystem::path(p) / "strata" / "machine.json").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".cache" / "strata" / "machine.json").string();
  return ".strata-machine.json";
}

MachineInfo machine_peaks(int threads, const MachineCacheOptions& options) {
  const std::string path = options.path.empty() ? default_machine_cache_path() : options.path;
  const std::string cpu = cpu_model();
  CacheFile cache = load_cache(path, options);
  if (!options.refresh) {
    if (std::optional<MachineInfo> cached = find_entry(cache.entries, cpu, threads)) {
      cached->cpu = cpu;
      cached->logical_cpus = logical_cpus();
      cached->peaks_source = "cache " + path;
      return *cached;
    }
  }
  const auto progress = [&](int64_t done) {
    if (options.progress) options.progress("machine peaks", done, 3);
  };
  MachineInfo m;
  m.cpu = cpu;
  m.logical_cpus = logical_cpus();
  progress(0);
  const FlopsMeasurement flops = measure_peak_gflops(threads, kFlopsSeconds);
  m.peak_gflops = flops.gflops;
  m.isa = flops.isa;
  progress(1);
  const FlopsMeasurement int8 = measure_peak_int8_gops(threads, kFlopsSeconds);
  m.peak_int8_gops = int8.gflops;
  m.int8_isa = int8.isa;
  progress(2);
  m.peak_gbps = measure_bandwidth_gbps(threads, kBandwidthPasses);
  progress(3);
  m.peaks_source = "measured";
  if (!cache.may_write) return m;
  json kept = json::array();
  for (const json& e : cache.entries)
    if (e["cpu"] != cpu || e["threads"] != threads) kept.push_back(e);
  kept.push_back({{"cpu", cpu},
                  {"threads", threads},
                  {"peak_gflops", m.peak_gflops},
                  {"peak_gbps", m.peak_gbps},
                  {"isa", m.isa},
                  {"peak_int8_gops", m.peak_int8_gops},
                  {"int8_isa", m.int8_isa},
                  {"measured", utc_now_iso8601()}});
  io::write_json_cache(path, {{"machines", kept}}, cache_kind(options));
  return m;
}

}  // namespace strata::profiler
