#include "report/profile_json.h"

#include <gtest/gtest.h>

#include <fstream>

#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::report {
namespace {

using nlohmann::json;
using test::expect_error;

using test::kSmallProfile;

// Every field set to a value other than its default, so a field the writer or the reader forgets
// breaks the round trip.
profiler::Profile full_profile() {
  profiler::Profile p;
  p.strata_version = "9.8.7";
  p.model = "dir/model name.onnx";
  p.model_sha256 = std::string(64, 'a');
  p.created = "2026-01-02T03:04:05Z";
  p.machine = {"CPU \"quoted\"", 8, 123.456, 45.678, "measured", "avx512f", 456.5, "avx512_vnni"};
  p.libraries = {{"fmt", "9.1.0"}, {"protobuf", "3.21.12"}};
  p.threads = 3;
  p.warmup = 2;
  p.options = "--iter 3";
  p.load_ms = 1.25;
  p.prepare_ms = 2.5;
  p.first_iteration_ms = 7.125;
  p.iterations_ms = {5.1, 5.2, 0.1 + 0.2};  // not exactly representable: must survive as is
  p.iteration_starts_ms = {0, 5.5, 11};
  p.unprofiled_ms = {5.0, 5.05, 4.95};
  p.overhead_pct = -0.75;
  p.process_cpu_pct = 280.5;
  p.system_cpu_pct = -1;  // unknown
  p.peak_rss_bytes = 123456789;
  p.arena_bytes = 4194368;
  p.predicted_peak_activation_bytes = 4194304;
  p.heap_counted = false;
  profiler::NodeProfile n;
  n.name = "/layer1/conv/Conv";
  n.op_type = "Conv";
  n.kernel = "reference";
  n.kernel_reason = "the fast kernels declined: onednn_conv: the weights W are not constant";
  n.layout = "nchw";
  n.input_shapes = {"float32[1,3,8,8]", "float32[4,3,3,3]"};
  n.output_shapes = {"float32[1,4,6,6]"};
  n.has_cost = true;
  n.macs = 3888;
  n.flops = 7776;
  n.bytes_read = 1200;
  n.bytes_written = 576;
  n.predicted_output_bytes = 576;
  n.samples_ms = {1.5, 1.25, 1.75};
  n.start_offsets_ms = {0.1, 0.2, 0.3};
  n.thread = 4;
  n.first_run_ms = 3.5;
  n.isolated_median_ms = 1.125;
  n.heap_allocations = 6;
  n.heap_bytes = 4096;
  n.arena_bytes = 576;
  p.nodes.push_back(n);
  profiler::NodeProfile scope;  // no cost, not isolated
  scope.name = "user/section";
  scope.op_type = "scope";
  scope.samples_ms = {0.5};
  p.nodes.push_back(scope);
  return p;
}

TEST(ProfileJson, RoundTripKeepsEveryField) {
  const profiler::Profile p = full_profile();
  test::TempDir dir;
  const std::string path = dir.path("profile.json");
  write_profile(p, path);
  const profiler::Profile back = read_profile(path);
  EXPECT_EQ(back, p);
  EXPECT_EQ(profile_to_json(back), profile_to_json(p));
}

TEST(ProfileJson, WritesTheDocumentedFieldsAndDerivedFigures) {
  const json j = profile_to_json(full_profile());
  EXPECT_EQ(j["schema_version"], 1);
  for (const char* key : {"min", "median", "mean", "sd", "p90", "p99", "max", "cv"})
    EXPECT_TRUE(j["latency_ms"].contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["latency_ms"]["median"].get<double>(), 5.1);
  EXPECT_DOUBLE_EQ(j["overhead_pct"].get<double>(), -0.75);
  EXPECT_TRUE(j["system_cpu_pct"].is_null());
  const json& conv = j["nodes"][0];
  EXPECT_EQ(conv["name"], "/layer1/conv/Conv");
  EXPECT_DOUBLE_EQ(conv["median_ms"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(conv["total_ms"].get<double>(), 4.5);
  EXPECT_EQ(conv["calls"], 3);
  EXPECT_DOUBLE_EQ(conv["gflops"].get<double>(), 7776 / 1.5e-3 * 1e-9);
  EXPECT_EQ(conv["bound"], "compute");  // 4.4 FLOP/B against a balance of 2.7
  const json& scope = j["nodes"][1];
  EXPECT_TRUE(scope["macs"].is_null());
  EXPECT_TRUE(scope["gflops"].is_null());
  EXPECT_TRUE(scope["bound"].is_null());
  EXPECT_TRUE(scope["isolated_median_ms"].is_null());
}

TEST(ProfileJson, ReadsTheHandWrittenProfile) {
  const profiler::Profile p = read_profile(kSmallProfile);
  EXPECT_EQ(p.model, "models/small_cnn.onnx");
  EXPECT_EQ(p.threads, 2);
  ASSERT_EQ(p.nodes.size(), 8u);
  EXPECT_TRUE(p.nodes[0].has_cost);
  EXPECT_DOUBLE_EQ(p.nodes[0].isolated_median_ms, 3.8);
  EXPECT_DOUBLE_EQ(p.nodes[1].isolated_median_ms, -1);  // absent: not run
  EXPECT_FALSE(p.nodes[5].has_cost);                    // null costs
  EXPECT_EQ(p.nodes[7].op_type, "scope");
  EXPECT_TRUE(p.heap_counted);
}

// Writes `j` to a file and expects reading it to fail naming the file and `detail`.
void expect_bad_profile(const json& j, const std::string& detail) {
  test::TempDir dir;
  const std::string path = dir.path("bad.json");
  std::ofstream(path) << j.dump();
  expect_error([&] { read_profile(path); }, {path, detail});
}

json small_profile_json() {
  std::ifstream in(kSmallProfile);
  return json::parse(in);
}

TEST(ProfileJson, BadFilesNameTheFileAndTheField) {
  test::TempDir dir;
  expect_error([&] { read_profile(dir.path("missing.json")); }, {"missing.json", "cannot open"});
  const std::string text = dir.path("text.json");
  std::ofstream(text) << "not json {";
  expect_error([&] { read_profile(text); }, {"text.json", "not a JSON file"});
  expect_error([&] { read_profile(dir.path("")); }, {"directory"});

  expect_bad_profile(json::array(), "JSON object, not an array");
  json run_json = {{"latency_ms", {{"median", 1}}}};  // what `strata run --json` writes
  expect_bad_profile(run_json, "field 'schema_version' is missing");

  json j = small_profile_json();
  j["schema_version"] = 2;
  expect_bad_profile(j, "schema_version 2 is newer than this strata reads (1)");
  j["schema_version"] = 0;
  expect_bad_profile(j, "field 'schema_version' is 0, below its minimum 1");
  j["schema_version"] = "1";
  expect_bad_profile(j, "field 'schema_version' should be an integer, not a string");

  j = small_profile_json();
  j["nodes"][2].erase("samples_ms");
  expect_bad_profile(j, "field 'nodes[2].samples_ms' is missing");
  j = small_profile_json();
  j["nodes"][1]["samples_ms"][3] = -0.5;
  expect_bad_profile(j, "field 'nodes[1].samples_ms[3]' is -0.5, but cannot be negative");
  j = small_profile_json();
  j["nodes"][0]["samples_ms"][0] = "1.0";
  expect_bad_profile(j, "field 'nodes[0].samples_ms[0]' should be a number, not a string");
  j = small_profile_json();
  j["threads"] = 1.5;
  expect_bad_profile(j, "field 'threads' should be an integer, not a number");
  j = small_profile_json();
  j["nodes"][0]["flops"] = nullptr;
  expect_bad_profile(j, "nodes[0].macs/flops/bytes_read/bytes_written' must be all numbers or all");
  j = small_profile_json();
  j["nodes"] = json::object();
  expect_bad_profile(j, "field 'nodes' should be an array, not an object");
  j = small_profile_json();
  j["nodes"][3] = 7;
  expect_bad_profile(j, "field 'nodes[3]' should be an object, not a number");
  j = small_profile_json();
  j["machine"]["peak_gflops"] = true;
  expect_bad_profile(j, "field 'machine.peak_gflops' should be a number, not a boolean");
  j = small_profile_json();
  j["libraries"]["fmt"] = 9;
  expect_bad_profile(j, "field 'libraries.fmt' should be a string, not a number");
  j = small_profile_json();
  j["nodes"][4]["input_shapes"] = {"f32[1]", 3};
  expect_bad_profile(j, "field 'nodes[4].input_shapes[1]' should be a string, not a number");
  j = small_profile_json();
  j.erase("iterations_ms");
  expect_bad_profile(j, "field 'iterations_ms' is missing");
}

TEST(ProfileJson, UnwritablePathNamesIt) {
  test::TempDir dir;
  const std::string path = dir.path("no/such/folder/p.json");
  expect_error([&] { write_profile(full_profile(), path); }, {path});
}

}  // namespace
}  // namespace strata::report
