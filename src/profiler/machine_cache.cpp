// The cache of measured machine peaks: a small JSON file keyed by CPU model and thread count.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "profiler/machine.h"
#include "profiler/profile_stamp.h"

namespace strata::profiler {

namespace {

using nlohmann::json;

constexpr const char* kCacheFormat = "strata-machine-cache";
constexpr int kCacheVersion = 1;
constexpr double kFlopsSeconds = 0.2;  // fastest of about 200 FMA runs of 1 ms
constexpr int kBandwidthPasses = 8;    // triads over 3 × 128 MiB here: about 0.5 s

void warn_if(const MachineCacheOptions& options, const std::string& message) {
  if (options.warn) options.warn(message);
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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return cache;
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception&) {
    warn_if(options, fmt::format("{}: the machine cache is not valid JSON; ignored (re-measuring "
                                 "and replacing it)",
                                 path));
    return cache;
  }
  if (!j.is_object() || j.value("format", json()) != kCacheFormat) {
    warn_if(options, fmt::format("{}: not a strata machine cache (no \"format\": \"{}\"); ignored "
                                 "and left unchanged",
                                 path, kCacheFormat));
    cache.may_write = false;
    return cache;
  }
  if (j.value("version", json()) != kCacheVersion) {
    warn_if(options, fmt::format("{}: machine cache version {} is not the version {} this strata "
                                 "reads; ignored and left unchanged",
                                 path, j.value("version", json()).dump(), kCacheVersion));
    cache.may_write = false;
    return cache;
  }
  const json& entries = j.value("machines", json());
  bool valid = entries.is_array();
  for (size_t i = 0; valid && i < entries.size(); ++i) {
    const json& e = entries[i];
    valid = e.is_object() && e.contains("cpu") && e["cpu"].is_string() && e.contains("threads") &&
            e["threads"].is_number_integer() && positive_number(e, "peak_gflops") &&
            positive_number(e, "peak_gbps");
  }
  if (!valid) {
    warn_if(options, fmt::format("{}: the machine cache is corrupt (entries need cpu, threads, "
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
    return m;
  }
  return std::nullopt;
}

// Writes through a temporary file and a rename, so a reader never sees half a cache.
void save_cache(const std::string& path, const json& entries, const MachineCacheOptions& options) {
  const json j = {{"format", kCacheFormat}, {"version", kCacheVersion}, {"machines", entries}};
  const std::filesystem::path target(path);
  const std::string temp = path + fmt::format(".tmp{}", ::getpid());
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out) {
      std::filesystem::remove(temp, ec);
      warn_if(options, fmt::format("{}: cannot write the machine cache; the peaks were measured "
                                   "but not saved",
                                   path));
      return;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    warn_if(options, fmt::format("{}: cannot write the machine cache ({}); the peaks were measured "
                                 "but not saved",
                                 path, ec.message()));
  }
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
  MachineInfo m;
  m.cpu = cpu;
  m.logical_cpus = logical_cpus();
  const FlopsMeasurement flops = measure_peak_gflops(threads, kFlopsSeconds);
  m.peak_gflops = flops.gflops;
  m.isa = flops.isa;
  m.peak_gbps = measure_bandwidth_gbps(threads, kBandwidthPasses);
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
                  {"measured", utc_now_iso8601()}});
  save_cache(path, kept, options);
  return m;
}

}  // namespace strata::profiler
