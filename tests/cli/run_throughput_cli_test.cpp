// `strata run` by time and for throughput: --duration, --streams, --input DIR; the JSON records
// the settings; bad values are one sentence and exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

using nlohmann::json;

// y = x * 2 for x float32 [2,3].
std::string double_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  m.add_initializer("two", Tensor::from<float>({}, {2}));
  m.add_node("Mul", {"x", "two"}, {"y"}, "mul");
  m.add_output("y", DType::kF32, {2, 3});
  return m.save(dir.path("double.onnx"));
}

// A folder of three [2,3] inputs: file k holds k everywhere.
std::string input_folder(const TempDir& dir) {
  const std::string folder = dir.mkdir("inputs");
  for (int k = 0; k < 3; ++k)
    io::write_npy(dir.path("inputs/" + std::to_string(k) + ".npy"),
                  Tensor::from<float>({2, 3}, std::vector<float>(6, float(k))));
  return folder;
}

TEST(RunThroughputCli, DurationRunsUntilTheTimeIsUsedAndSaysHowMany) {
  TempDir dir;
  const std::string report = dir.path("run.json");
  const CliResult r = run_strata(
      dir, {"run", double_model(dir), "--duration", "0.3", "--warmup", "0", "--json", report});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "runs").find("(--duration 0.3 s)"), std::string::npos) << r.out;
  EXPECT_EQ(line_starting(r.out, "iterations"), "") << r.out;  // not thousands of figures
  const json j = json::parse(read_text(report));
  EXPECT_EQ(j["settings"]["duration_s"], 0.3);
  EXPECT_TRUE(j["settings"]["iterations"].is_null());
  EXPECT_EQ(j["settings"]["streams"], 1);
  EXPECT_GT(j["timed_runs"].get<int64_t>(), 10);
  EXPECT_EQ(j["iterations_ms"].size(), j["timed_runs"].get<size_t>());
  EXPECT_GE(j["wall_ms"].get<double>(), 300);
  EXPECT_NE(line_starting(r.out, "runs").find(j["timed_runs"].dump() + " timed runs"),
            std::string::npos)
      << r.out;
}

TEST(RunThroughputCli, StreamsReportThroughputAndEachStreamsLatency) {
  TempDir dir;
  const std::string report = dir.path("run.json");
  const CliResult r = run_strata(dir, {"run", kExampleModel, "-i", kExampleImage, "--streams", "2",
                                       "--threads", "1", "--iter", "5", "--json", report});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "stream 0").find("median"), std::string::npos) << r.out;
  EXPECT_NE(line_starting(r.out, "stream 1").find("(5 runs)"), std::string::npos) << r.out;
  EXPECT_NE(line_starting(r.out, "throughput").find("over the wall time"), std::string::npos)
      << r.out;
  EXPECT_NE(line_starting(r.out, "runs").find("10 timed runs"), std::string::npos) << r.out;
  const json j = json::parse(read_text(report));
  EXPECT_EQ(j["settings"]["streams"], 2);
  EXPECT_EQ(j["settings"]["iterations"], 5);
  ASSERT_EQ(j["streams"].size(), 2u);
  for (const json& s : j["streams"]) {
    EXPECT_EQ(s["runs"], 5);
    EXPECT_GT(s["latency_ms"]["median"].get<double>(), 0);
  }
  EXPECT_EQ(j["iterations_ms"].size(), 10u);
  const double expected = 10 * 1000.0 / j["wall_ms"].get<double>();
  EXPECT_NEAR(j["throughput_per_s"].get<double>(), expected, expected * 1e-9);
}

TEST(RunThroughputCli, AFolderOfInputsIsFedRoundRobin) {
  TempDir dir;
  const std::string folder = input_folder(dir);
  const std::string report = dir.path("run.json");
  const CliResult r = run_strata(dir, {"run", double_model(dir), "-i", "x=" + folder, "--iter", "4",
                                       "--json", report, "--dump-outputs", dir.path("out")});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find(folder + " (3 files, round-robin)"), std::string::npos) << r.out;
  const json j = json::parse(read_text(report));
  EXPECT_EQ(j["settings"]["input_sets"], 3);
  // The outputs shown and dumped are those of the first input set: 0 * 2.
  EXPECT_EQ(io::read_npy(dir.path("out/y.npy")).to_double(), std::vector<double>(6, 0.0));
}

TEST(ProfileThroughputCli, DurationAndAFolderOfInputs) {
  TempDir dir;
  const std::string folder = input_folder(dir);
  const std::string profile = dir.path("p.json");
  const CliResult r =
      run_strata(dir, {"profile", double_model(dir), "-i", "x=" + folder, "--duration", "0.3",
                       "--warmup", "0", "--no-roofline", "-o", profile});
  ASSERT_EQ(r.code, 0) << describe(r);
  const json j = json::parse(read_text(profile));
  const std::string options = j["options"];
  EXPECT_NE(options.find("--duration 0.3"), std::string::npos) << options;
  EXPECT_EQ(options.find("--iter"), std::string::npos) << options;
  EXPECT_NE(options.find("--input x=" + folder), std::string::npos) << options;
  // A single Mul runs many pairs in 0.3 s; the summary says how many.
  const size_t iterations = j["iterations_ms"].size();
  EXPECT_GT(iterations, 10u);
  EXPECT_NE(line_starting(r.out, "run")
                .find(std::to_string(iterations) + " iterations (--duration 0.3 s)"),
            std::string::npos)
      << r.out;
}

TEST(ProfileThroughputCli, BadValuesAreOneSentenceAndExit2) {
  TempDir dir;
  const std::string model = double_model(dir);
  expect_bad_input(run_strata(dir, {"profile", model, "--duration", "0"}), {"--duration", "0"});
  expect_bad_input(run_strata(dir, {"profile", model, "--duration", "1", "--iter", "5"}),
                   {"--duration", "--iter"});
  expect_bad_input(run_strata(dir, {"profile", model, "--streams", "2"}),
                   {"--streams", "strata run"});
}

TEST(RunThroughputCli, BadValuesAreOneSentenceAndExit2) {
  TempDir dir;
  const std::string model = double_model(dir);
  expect_bad_input(run_strata(dir, {"run", model, "--duration", "0"}), {"--duration", "0"});
  expect_bad_input(run_strata(dir, {"run", model, "--duration", "-2"}), {"--duration"});
  expect_bad_input(run_strata(dir, {"run", model, "--duration", "1", "--iter", "5"}),
                   {"--duration", "--iter"});
  expect_bad_input(run_strata(dir, {"run", model, "--streams", "0"}), {"--streams", "0"});
  expect_bad_input(run_strata(dir, {"run", model, "--streams", "-1"}), {"--streams"});
  expect_bad_input(run_strata(dir, {"run", model, "--streams", "100000"}),
                   {"--streams 100000", "CPUs", "--oversubscribe"});

  const std::string empty = dir.mkdir("empty");
  expect_bad_input(run_strata(dir, {"run", model, "-i", "x=" + empty}), {empty, "no input files"});
  expect_bad_input(run_strata(dir, {"run", model, "-i", dir.path("absent")}),
                   {dir.path("absent"), "does not exist"});
  const std::string folder = input_folder(dir);
  dir.write("inputs/notes.txt", "not a tensor");
  expect_bad_input(run_strata(dir, {"run", model, "-i", folder}), {"notes.txt"});
  std::filesystem::remove(dir.path("inputs/notes.txt"));
  io::write_npy(dir.path("inputs/3.npy"), Tensor::from<float>({3, 2}, std::vector<float>(6, 3)));
  expect_bad_input(run_strata(dir, {"run", model, "-i", folder}), {"3.npy", "'x'"});
  // strata profile reads a folder the same way.
  expect_bad_input(run_strata(dir, {"profile", model, "-i", folder, "--no-roofline"}),
                   {"3.npy", "'x'"});
}

}  // namespace
}  // namespace strata::test
