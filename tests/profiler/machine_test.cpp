#include "profiler/machine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::profiler {
namespace {

TEST(Machine, IdentityAndLibraryVersions) {
  EXPECT_FALSE(cpu_model().empty());
  EXPECT_GE(logical_cpus(), 1);
  const auto versions = library_versions();
  EXPECT_EQ(versions.at("fmt"), fmt::format("{}.{}.{}", FMT_VERSION / 10000,
                                            FMT_VERSION % 10000 / 100, FMT_VERSION % 100));
  EXPECT_TRUE(versions.count("protobuf"));
  EXPECT_EQ(versions.at("onednn").rfind("2.", 0), 0u) << versions.at("onednn");  // Debian 12: 2.6
}

TEST(Machine, MeasuresPositivePeaks) {
  const FlopsMeasurement f = measure_peak_gflops(1, 0.02);
  EXPECT_GT(f.gflops, 0.1);  // any CPU of this century does more than 100 MFLOP/s
  EXPECT_FALSE(f.isa.empty());
  EXPECT_GT(measure_bandwidth_gbps(1, 2), 0.1);
  test::expect_error([] { measure_peak_gflops(0); }, {"thread count 0 is out of range"});
  const FlopsMeasurement int8 = measure_peak_int8_gops(1, 0.02);
  EXPECT_GT(int8.gflops, 0.1);
  const std::vector<std::string> isas{"avx512_vnni", "avx512bw", "avx2", "scalar"};
  EXPECT_NE(std::find(isas.begin(), isas.end(), int8.isa), isas.end()) << int8.isa;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(MachineCache, MeasuresOnceThenReadsTheCache) {
  test::TempDir dir;
  std::vector<std::string> warnings;
  MachineCacheOptions o;
  o.path = dir.path("sub/machine.json");
  o.warn = [&](const std::string& w) { warnings.push_back(w); };
  const MachineInfo measured = machine_peaks(1, o);
  EXPECT_EQ(measured.peaks_source, "measured");
  EXPECT_GT(measured.peak_gflops, 0);
  EXPECT_GT(measured.peak_gbps, 0);
  EXPECT_EQ(measured.cpu, cpu_model());
  const nlohmann::json file = nlohmann::json::parse(read_text(o.path));
  EXPECT_EQ(file["format"], "strata-machine-cache");
  ASSERT_EQ(file["machines"].size(), 1u);
  EXPECT_EQ(file["machines"][0]["threads"], 1);

  const MachineInfo cached = machine_peaks(1, o);
  EXPECT_EQ(cached.peaks_source, "cache " + o.path);
  EXPECT_EQ(cached.peak_gflops, measured.peak_gflops);
  EXPECT_EQ(cached.peak_gbps, measured.peak_gbps);
  EXPECT_EQ(cached.isa, measured.isa);
  EXPECT_GT(measured.peak_int8_gops, 0);
  EXPECT_EQ(cached.peak_int8_gops, measured.peak_int8_gops);
  EXPECT_EQ(cached.int8_isa, measured.int8_isa);
  EXPECT_TRUE(warnings.empty());

  o.refresh = true;
  EXPECT_EQ(machine_peaks(1, o).peaks_source, "measured");
  EXPECT_EQ(nlohmann::json::parse(read_text(o.path))["machines"].size(),
            1u);  // replaced, not added
}

TEST(MachineCache, CorruptCacheIsReplacedWithAWarning) {
  test::TempDir dir;
  std::vector<std::string> warnings;
  MachineCacheOptions o;
  o.path = dir.write("machine.json",
                     "{\"format\": \"strata-machine-cache\", \"version\": 1, "
                     "\"machines\": [{\"cpu\": 3}]}");
  o.warn = [&](const std::string& w) { warnings.push_back(w); };
  EXPECT_EQ(machine_peaks(1, o).peaks_source, "measured");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("corrupt"), std::string::npos) << warnings[0];
  EXPECT_EQ(nlohmann::json::parse(read_text(o.path))["machines"][0]["cpu"], cpu_model());

  warnings.clear();
  dir.write("machine.json", "{ not json");
  EXPECT_EQ(machine_peaks(1, o).peaks_source, "measured");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("not valid JSON"), std::string::npos) << warnings[0];
}

TEST(MachineCache, ForeignFileIsIgnoredAndLeftAlone) {
  test::TempDir dir;
  std::vector<std::string> warnings;
  MachineCacheOptions o;
  const std::string foreign = "{\"theme\": \"dark\"}";
  o.path = dir.write("settings.json", foreign);
  o.warn = [&](const std::string& w) { warnings.push_back(w); };
  EXPECT_EQ(machine_peaks(1, o).peaks_source, "measured");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("not a strata machine cache"), std::string::npos) << warnings[0];
  EXPECT_EQ(read_text(o.path), foreign);
}

}  // namespace
}  // namespace strata::profiler
