// The real `strata profile` binary on the example model: summary, overhead and tables printed;
// the -o profile and --trace files parse and hold what they promise; bad options and paths exit 2.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "testutil/cli_util.h"
#include "testutil/control_flow_models.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

using nlohmann::json;

constexpr int kIterations = 3;

// A quick profile of the example: few iterations, no machine peaks (they take a second to measure).
std::vector<std::string> profile_args(std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"profile", kExampleModel, "-i", kExampleImage,  "--iter",
                                "3",       "--warmup",    "1",  "--no-roofline"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

json read_json(const std::string& path) {
  return json::parse(read_text(path));
}

TEST(ProfileCli, ExamplePrintsSummaryOverheadAndTables) {
  TempDir dir;
  const CliResult r = run_strata(dir, profile_args({"--by", "all", "--top", "0"}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "latency").find("median"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "unprofiled").find("profiling overhead"), std::string::npos)
      << describe(r);
  EXPECT_NE(line_starting(r.out, "parts").find("outside operators"), std::string::npos)
      << describe(r);
  EXPECT_NE(line_starting(r.out, "first run").find("cold"), std::string::npos) << describe(r);
  EXPECT_FALSE(line_starting(r.out, "cpu").empty()) << describe(r);
  EXPECT_FALSE(line_starting(r.out, "memory").empty()) << describe(r);
  // The three tables: every Conv of the example shows up by name and by type.
  EXPECT_NE(r.out.find("/conv1/Conv"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("Conv"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("layer1"), std::string::npos) << describe(r);
}

TEST(ProfileCli, WritesProfileAndTraceFiles) {
  TempDir dir;
  const std::string profile_path = dir.path("profile.json");
  const std::string trace_path = dir.path("trace.json");
  const CliResult r = run_strata(dir, profile_args({"-o", profile_path, "--trace", trace_path,
                                                    "--isolate", "--isolate-repeats", "2"}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("isolated"), std::string::npos) << describe(r);

  const json p = read_json(profile_path);
  EXPECT_EQ(p.at("schema_version"), 1);
  EXPECT_GT(p.at("latency_ms").at("median").get<double>(), 0);
  EXPECT_TRUE(p.at("overhead_pct").is_number());
  EXPECT_EQ(p.at("iterations_ms").size(), size_t(kIterations));
  EXPECT_EQ(p.at("unprofiled_ms").size(), size_t(kIterations));
  EXPECT_EQ(p.at("model_sha256").get<std::string>().size(), 64u);
  const json& nodes = p.at("nodes");
  ASSERT_GT(nodes.size(), 5u);
  size_t convs = 0, isolated_nodes = 0;
  for (const json& n : nodes) {
    for (const char* key :
         {"name", "op_type", "median_ms", "macs", "flops", "bytes_read", "bytes_written", "kernel"})
      EXPECT_TRUE(n.contains(key)) << key << " in " << n.dump();
    EXPECT_EQ(n.at("samples_ms").size(), size_t(kIterations)) << n.at("name");
    // Null for a node that runs in place (it cannot be re-run on its overwritten input).
    const json& isolated = n.at("isolated_median_ms");
    EXPECT_TRUE(isolated.is_number() || isolated.is_null()) << n.at("name");
    isolated_nodes += isolated.is_number();
    if (n.at("op_type").get<std::string>().find("Conv") != std::string::npos) {  // FusedConv too
      ++convs;
      EXPECT_GT(n.at("macs").get<double>(), 0) << n.at("name");
    }
  }
  EXPECT_GT(convs, 0u);
  EXPECT_GT(isolated_nodes, nodes.size() / 2);

  const json trace = read_json(trace_path);
  size_t node_events = 0, iteration_events = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    if (e.at("cat") == "iteration") {
      ++iteration_events;
      continue;
    }
    ++node_events;
    EXPECT_TRUE(e.at("args").contains("kernel"));
    EXPECT_TRUE(e.at("args").contains("inputs"));
  }
  EXPECT_EQ(iteration_events, size_t(kIterations));
  EXPECT_EQ(node_events, nodes.size() * kIterations);

  // The saved profile reads back with strata report.
  const CliResult report = run_strata(dir, {"report", profile_path, "--top", "0"});
  EXPECT_EQ(report.code, 0) << describe(report);
  EXPECT_NE(report.out.find("/conv1/Conv"), std::string::npos) << describe(report);
}

TEST(ProfileCli, FiltersApplyToTheTables) {
  TempDir dir;
  const CliResult r = run_strata(dir, profile_args({"--type", "MaxPool", "--by", "node"}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("/MaxPool"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("/conv1/Conv "), std::string::npos) << describe(r);
}

TEST(ProfileCli, MachinePeaksGiveARoofline) {
  TempDir dir;
  setenv("STRATA_MACHINE_CACHE", dir.path("machine.json").c_str(), 1);
  std::vector<std::string> a = profile_args();
  a.pop_back();  // measure the peaks (about a second), cached in the temporary file
  const CliResult r = run_strata(dir, a);
  unsetenv("STRATA_MACHINE_CACHE");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "machine").find("GFLOP/s"), std::string::npos) << describe(r);
}

// A Loop whose body holds an If: the body nodes show in every view, under their parent's name,
// with their calls per inference and their shapes' range; the JSON reads back in `strata report`.
TEST(ProfileCli, ControlFlowBodiesShowInEveryView) {
  TempDir dir;
  const std::string model = growing_loop_model(3, true).save(dir.path("loop.onnx"));
  const std::string profile_path = dir.path("p.json");
  const CliResult r =
      run_strata(dir, {"profile", model, "--iter", "2", "--warmup", "0", "--no-roofline", "--by",
                       "all", "--top", "0", "-o", profile_path});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("grow/body/body_concat"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("grow/body/gate/then/inner_relu"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("6 (3/inf)"), std::string::npos) << describe(r);  // 2 iterations × 3 trips
  EXPECT_NE(r.out.find("float32[1..3,4]"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("then"), std::string::npos) << describe(r);  // a scope of the tree
  const json p = read_json(profile_path);
  bool found = false;
  for (const json& n : p["nodes"])
    if (n["name"] == "grow/body/body_concat") {
      found = true;
      EXPECT_EQ(n["parent"], "grow");
      EXPECT_EQ(n["calls"], 6);
      EXPECT_EQ(n["calls_per_iteration"], json::array({3, 3}));
      EXPECT_EQ(n["shape_sets"].size(), 3u);
    }
  EXPECT_TRUE(found);
  const CliResult report = run_strata(dir, {"report", profile_path, "--by", "node", "--top", "0"});
  ASSERT_EQ(report.code, 0) << describe(report);
  EXPECT_NE(report.out.find("grow/body/gate/then/inner_relu"), std::string::npos)
      << describe(report);
  EXPECT_NE(report.out.find("float32[1..3,4]"), std::string::npos) << describe(report);
}

TEST(ProfileCli, MissingModelIsBadInput) {
  TempDir dir;
  const std::string missing = dir.path("absent.onnx");
  expect_bad_input(run_strata(dir, {"profile", missing, "--no-roofline"}), {missing});
}

TEST(ProfileCli, UnwritableOutputsFailBeforeRunning) {
  TempDir dir;
  const std::string bad = dir.path("no/such/dir/profile.json");
  expect_bad_input(run_strata(dir, profile_args({"-o", bad})), {bad});
  expect_bad_input(run_strata(dir, profile_args({"--trace", bad})), {bad});
}

TEST(ProfileCli, BadOptionsAreBadInput) {
  TempDir dir;
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--iter", "0"}), {"--iter"});
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--warmup", "-1"}), {"--warmup"});
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--isolate-repeats", "0"}),
                   {"--isolate-repeats"});
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--by", "bogus"}), {"--by"});
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--order-by", "size"}),
                   {"--order-by"});
  expect_bad_input(run_strata(dir, profile_args({"--name", "("})), {"--name"});
  expect_bad_input(run_strata(dir, {"profile", kExampleModel, "--input", "nonexistent.npy"}),
                   {"nonexistent.npy"});
}

}  // namespace
}  // namespace strata::test
