// The real `strata run` binary on real files: output lines, JSON report, exit codes and messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/npy.h"
#include "runtime/verify.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

const std::string kExampleExpected = kExampleDir + "/tiny_resnet_expected";

const std::vector<std::string> kQuick = {"--iter", "2", "--warmup", "0"};

std::vector<std::string> args(std::vector<std::string> a, bool quick = true) {
  if (quick) a.insert(a.end(), kQuick.begin(), kQuick.end());
  return a;
}

// y = x * 2 + 1 for x float32 [2,3] (static) — tiny, quick to run.
std::string affine_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  m.add_initializer("two", Tensor::from<float>({}, {2}));
  m.add_initializer("one", Tensor::from<float>({}, {1}));
  m.add_node("Mul", {"x", "two"}, {"twice"}, "mul");
  m.add_node("Add", {"twice", "one"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {2, 3});
  return m.save(dir.path("affine.onnx"));
}

// y = a - b for a, b float32 [2].
std::string sub_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {2});
  m.add_input("b", DType::kF32, {2});
  m.add_node("Sub", {"a", "b"}, {"y"}, "sub");
  m.add_output("y");
  return m.save(dir.path("sub.onnx"));
}

// y = Relu(x) for x float32 [N,3].
std::string symbolic_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 3});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  return m.save(dir.path("symbolic.onnx"));
}

std::vector<double> dumped(const TempDir& dir, const std::string& name) {
  return io::read_npy(dir.path("dump/" + name + ".npy")).to_double();
}

// ---- The example ----

TEST(Cli, ExampleRunPrintsTheSummary) {
  TempDir dir;
  const CliResult r = run_strata(
      dir, args({"run", kExampleModel, "-i", kExampleImage, "--verify", kExampleExpected}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "load").find("ms"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "prepare").find("ms"), std::string::npos) << describe(r);
  const std::string latency = line_starting(r.out, "latency");
  for (const char* word : {"min", "median", "mean", "sd", "p90", "p99", "max", "CV"})
    EXPECT_NE(latency.find(word), std::string::npos) << word << "\n" << describe(r);
  EXPECT_NE(line_starting(r.out, "throughput").find("inferences/s"), std::string::npos)
      << describe(r);
  EXPECT_NE(line_starting(r.out, "verify").find("probabilities: ok"), std::string::npos)
      << describe(r);
  EXPECT_NE(r.out.find("float32[1,3,32,32]"), std::string::npos) << describe(r);
}

TEST(Cli, JsonReport) {
  TempDir dir;
  const std::string json_path = dir.path("report.json");
  const CliResult r =
      run_strata(dir, {"run", kExampleModel, "-i", kExampleImage, "--verify", kExampleExpected,
                       "--warmup", "2", "--iter", "3", "--json", json_path, "-q"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path));
  EXPECT_TRUE(j.at("load_ms").is_number());
  EXPECT_GT(j.at("load_ms").get<double>(), 0);
  EXPECT_TRUE(j.at("prepare_ms").is_number());
  ASSERT_TRUE(j.at("warmup_ms").is_array());
  EXPECT_EQ(j.at("warmup_ms").size(), 2u);
  ASSERT_TRUE(j.at("iterations_ms").is_array());
  EXPECT_EQ(j.at("iterations_ms").size(), 3u);
  const nlohmann::json& latency = j.at("latency_ms");
  for (const char* key : {"min", "median", "mean", "sd", "p90", "p99", "max", "cv"})
    EXPECT_TRUE(latency.at(key).is_number()) << key;
  EXPECT_LE(latency.at("min").get<double>(), latency.at("median").get<double>());
  EXPECT_LE(latency.at("median").get<double>(), latency.at("max").get<double>());
  double min = 1e300;
  for (const auto& ms : j.at("iterations_ms")) min = std::min(min, ms.get<double>());
  EXPECT_DOUBLE_EQ(latency.at("min").get<double>(), min);
  const nlohmann::json& verify = j.at("verify");
  ASSERT_TRUE(verify.is_object());
  EXPECT_TRUE(verify.at("probabilities").at("ok").get<bool>());
  EXPECT_EQ(j.at("outputs").at(0).at("name"), "probabilities");
  EXPECT_EQ(j.at("inputs").at(0).at("name"), "image");
}

TEST(Cli, JsonWithoutVerifyHasNoVerifyObject) {
  TempDir dir;
  const std::string json_path = dir.path("report.json");
  const CliResult r = run_strata(dir, args({"run", affine_model(dir), "--json", json_path, "-q"}));
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path));
  EXPECT_FALSE(j.contains("verify"));
  EXPECT_EQ(j.at("warmup_ms").size(), 0u);
  EXPECT_EQ(j.at("iterations_ms").size(), 2u);
}

TEST(Cli, VerifyAgainstAPerturbedExpectedFileFails) {
  TempDir dir;
  Tensor expected = io::read_npy(kExampleExpected + "/probabilities.npy");
  expected.data<float>()[3] += 0.01f;
  dir.mkdir("expected");
  io::write_npy(dir.path("expected/probabilities.npy"), expected);
  const CliResult r = run_strata(
      dir, args({"run", kExampleModel, "-i", kExampleImage, "--verify", dir.path("expected")}));
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("flat index 3"), std::string::npos) << describe(r);
}

TEST(Cli, VerifyFolderWithoutTheOutputIsBadInput) {
  TempDir dir;
  dir.mkdir("expected");
  const CliResult r = run_strata(
      dir, args({"run", kExampleModel, "-i", kExampleImage, "--verify", dir.path("expected")}));
  expect_bad_input(r, {"probabilities"});
}

TEST(Cli, DumpOutputsEqualTheVerifyData) {
  TempDir dir;
  const CliResult r = run_strata(
      dir, args({"run", kExampleModel, "-i", kExampleImage, "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  const Tensor got = io::read_npy(dir.path("dump/probabilities.npy"));
  const Tensor want = io::read_npy(kExampleExpected + "/probabilities.npy");
  const runtime::Comparison c = runtime::compare(got, want, {});
  EXPECT_TRUE(c.ok) << c.problem;
}

TEST(Cli, VerifyWithPbFilesAndOddOutputNames) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Neg", {"x"}, {"out/neg:0"}, "neg");
  m.add_output("out/neg:0");
  const std::string model = m.save(dir.path("odd.onnx"));
  dir.mkdir("expected");
  write_tensor_pb(dir.path("expected/out_neg_0.pb"), Tensor::from<float>({2}, {-1, 2}));
  const CliResult r =
      run_strata(dir, args({"run", model, "-i", "x=[1,-2]", "--verify", dir.path("expected"),
                            "--dump-outputs", dir.path("dump")}));
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("out/neg:0: ok"), std::string::npos) << describe(r);
  EXPECT_EQ(dumped(dir, "out_neg_0"), (std::vector<double>{-1, 2}));
}

// ---- Test data folders ----

TEST(Cli, TestDataFolder) {
  TempDir dir;
  const std::string model = affine_model(dir);
  dir.mkdir("test_data_set_0");
  write_tensor_pb(dir.path("test_data_set_0/input_0.pb"),
                  Tensor::from<float>({2, 3}, {0, 1, 2, -1, -2, 0.5f}), "x");
  write_tensor_pb(dir.path("test_data_set_0/output_0.pb"),
                  Tensor::from<float>({2, 3}, {1, 3, 5, -1, -3, 2}), "y");
  const CliResult ok =
      run_strata(dir, args({"run", model, "--test-data", dir.path("test_data_set_0")}));
  EXPECT_EQ(ok.code, 0) << describe(ok);
  EXPECT_NE(ok.out.find("y: ok"), std::string::npos) << describe(ok);

  write_tensor_pb(dir.path("test_data_set_0/output_0.pb"),
                  Tensor::from<float>({2, 3}, {1, 3, 5, -1, -3, 2.1f}), "y");
  const CliResult bad =
      run_strata(dir, args({"run", model, "--test-data", dir.path("test_data_set_0")}));
  EXPECT_EQ(bad.code, 1) << describe(bad);
  EXPECT_NE(bad.out.find("MISMATCH"), std::string::npos) << describe(bad);
}

TEST(Cli, TestDataWithTooFewInputsIsBadInput) {
  TempDir dir;
  const std::string model = sub_model(dir);
  dir.mkdir("set");
  write_tensor_pb(dir.path("set/input_0.pb"), Tensor::from<float>({2}, {1, 2}));
  write_tensor_pb(dir.path("set/output_0.pb"), Tensor::from<float>({2}, {1, 2}));
  expect_bad_input(run_strata(dir, args({"run", model, "--test-data", dir.path("set")})),
                   {dir.path("set"), "1 input"});
}

// ---- Binding inputs ----

TEST(Cli, InputsByName) {
  TempDir dir;
  io::write_npy(dir.path("a.npy"), Tensor::from<float>({2}, {10, 20}));
  io::write_npy(dir.path("b.npy"), Tensor::from<float>({2}, {1, 2}));
  const CliResult r =
      run_strata(dir, args({"run", sub_model(dir), "-i", "b=" + dir.path("b.npy"), "-i",
                            "a=" + dir.path("a.npy"), "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(dumped(dir, "y"), (std::vector<double>{9, 18}));
}

TEST(Cli, BareInputsBoundInOrder) {
  TempDir dir;
  io::write_npy(dir.path("a.npy"), Tensor::from<float>({2}, {10, 20}));
  io::write_npy(dir.path("b.npy"), Tensor::from<float>({2}, {1, 2}));
  const CliResult r =
      run_strata(dir, args({"run", sub_model(dir), "-i", dir.path("b.npy"), "-i", dir.path("a.npy"),
                            "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(dumped(dir, "y"), (std::vector<double>{-9, -18}));
}

TEST(Cli, InlineInputs) {
  TempDir dir;
  const CliResult r = run_strata(dir, args({"run", sub_model(dir), "-i", "a=[1,2]", "-i", "b=[3,5]",
                                            "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(dumped(dir, "y"), (std::vector<double>{-2, -3}));
  EXPECT_NE(r.out.find("inline"), std::string::npos) << describe(r);
}

TEST(Cli, ShapeForASymbolicDim) {
  TempDir dir;
  const std::string model = symbolic_model(dir);
  const CliResult r =
      run_strata(dir, args({"run", model, "--shape", "x=4x3", "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(io::read_npy(dir.path("dump/y.npy")).shape(), (std::vector<int64_t>{4, 3}));
  const CliResult by_dim =
      run_strata(dir, args({"run", model, "--dim", "N=5", "--dump-outputs", dir.path("dump")}));
  ASSERT_EQ(by_dim.code, 0) << describe(by_dim);
  EXPECT_EQ(io::read_npy(dir.path("dump/y.npy")).shape(), (std::vector<int64_t>{5, 3}));
}

TEST(Cli, RandomInputsAreReproducible) {
  TempDir dir;
  const std::string model = affine_model(dir);
  ASSERT_EQ(
      run_strata(dir, args({"run", model, "--seed", "3", "--dump-outputs", dir.path("d1")})).code,
      0);
  ASSERT_EQ(
      run_strata(dir, args({"run", model, "--seed", "3", "--dump-outputs", dir.path("d2")})).code,
      0);
  EXPECT_EQ(io::read_npy(dir.path("d1/y.npy")).to_double(),
            io::read_npy(dir.path("d2/y.npy")).to_double());
}

// ---- Bad input: exit 2 and one line naming the culprit ----

TEST(CliBadInput, WrongShape) {
  TempDir dir;
  io::write_npy(dir.path("x.npy"), Tensor::zeros(DType::kF32, {3, 3}));
  expect_bad_input(
      run_strata(dir, args({"run", affine_model(dir), "-i", "x=" + dir.path("x.npy")})),
      {"'x'", "[3,3]", "[2,3]"});
}

TEST(CliBadInput, WrongDtype) {
  TempDir dir;
  io::write_npy(dir.path("x.npy"), Tensor::zeros(DType::kI32, {2, 3}));
  expect_bad_input(
      run_strata(dir, args({"run", affine_model(dir), "-i", "x=" + dir.path("x.npy")})),
      {"'x'", "x.npy", "int32"});
}

TEST(CliBadInput, MissingShapeForADynamicInput) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", symbolic_model(dir)})), {"'x'", "'N'"});
}

TEST(CliBadInput, UnknownInputName) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", affine_model(dir), "-i", "image=[1]"})),
                   {"'image'"});
}

TEST(CliBadInput, MissingInputFile) {
  TempDir dir;
  expect_bad_input(
      run_strata(dir, args({"run", affine_model(dir), "-i", "x=" + dir.path("absent.npy")})),
      {dir.path("absent.npy")});
}

TEST(CliBadInput, CorruptInputFile) {
  TempDir dir;
  dir.write("x.npy", "definitely not numpy");
  expect_bad_input(
      run_strata(dir, args({"run", affine_model(dir), "-i", "x=" + dir.path("x.npy")})),
      {dir.path("x.npy")});
}

TEST(CliBadInput, InputFileIsAFolder) {
  TempDir dir;
  dir.mkdir("x.npy");
  expect_bad_input(
      run_strata(dir, args({"run", affine_model(dir), "-i", "x=" + dir.path("x.npy")})),
      {dir.path("x.npy")});
}

TEST(CliBadInput, NonExistentModel) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", dir.path("nothing.onnx")})),
                   {dir.path("nothing.onnx")});
}

TEST(CliBadInput, TruncatedModel) {
  TempDir dir;
  const std::string bytes = read_text(kExampleModel);
  const std::string path = dir.write("half.onnx", bytes.substr(0, bytes.size() / 2));
  expect_bad_input(run_strata(dir, args({"run", path})), {path});
}

TEST(CliBadInput, UnknownOption) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", affine_model(dir), "--bogus-option"})),
                   {"--bogus-option"});
}

TEST(CliBadInput, DimNotANumber) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", kExampleModel, "--dim", "N=abc"})),
                   {"--dim N", "'abc' is not a size"});
}

TEST(CliBadInput, NegativeSeed) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", kExampleModel, "--seed", "-1"})), {"--seed"});
}

TEST(CliBadInput, MaxMemoryTooSmall) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", kExampleModel, "--max-memory", "1K"})),
                   {"memory limit", "1024"});
}

TEST(CliBadInput, MaxMemoryNotASize) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", affine_model(dir), "--max-memory", "lots"})),
                   {"lots"});
}

TEST(CliBadInput, ShapeOptionMalformed) {
  TempDir dir;
  expect_bad_input(run_strata(dir, args({"run", symbolic_model(dir), "--shape", "x=4xx3"})),
                   {"x", "4xx3"});
}

// An output the op never makes would be left without contents; an input Gemm does not take would
// be ignored: both are refused at load, naming the node and the value.
TEST(CliBadInput, NodeOutputsAndInputsTheOpDoesNotHave) {
  TempDir dir;
  ModelBuilder extra_output;
  extra_output.add_input("x", DType::kF32, {2, 3});
  extra_output.add_node("Relu", {"x"}, {"y", "z"}, "relu");
  extra_output.add_output("y");
  extra_output.add_output("z");
  expect_bad_input(run_strata(dir, args({"run", extra_output.save(dir.path("extra_output.onnx"))})),
                   {"relu", "output 1 'z'"});
  // The same where the shapes are known only while running (the Reshape's target is an input).
  ModelBuilder dynamic;
  dynamic.add_input("x", DType::kF32, {2, 3});
  dynamic.add_input("shape", DType::kI64, {2});
  dynamic.add_node("Reshape", {"x", "shape"}, {"r"}, "reshape");
  dynamic.add_node("Relu", {"r"}, {"y", "z"}, "relu");
  dynamic.add_output("y");
  dynamic.add_output("z");
  expect_bad_input(run_strata(dir, args({"run", dynamic.save(dir.path("dynamic.onnx")), "-i",
                                         "x=[[1,2,3],[4,5,6]]", "-i", "shape=[3,2]"})),
                   {"relu", "output 1 'z'"});
  ModelBuilder extra_input;
  extra_input.add_input("a", DType::kF32, {2, 3});
  extra_input.add_input("b", DType::kF32, {3, 4});
  extra_input.add_input("c", DType::kF32, {4});
  extra_input.add_node("Gemm", {"a", "b", "c", "c"}, {"y"}, "gemm");
  extra_input.add_output("y");
  expect_bad_input(run_strata(dir, args({"run", extra_input.save(dir.path("extra_input.onnx"))})),
                   {"gemm", "takes 3 inputs"});
}

TEST(CliBadInput, TestDataCombinedWithInputs) {
  TempDir dir;
  dir.mkdir("set");
  expect_bad_input(run_strata(dir, args({"run", affine_model(dir), "--test-data", dir.path("set"),
                                         "-i", "x=[1]"})),
                   {"--test-data", "--input"});
}

TEST(CliBadInput, DumpOutputsIntoAFile) {
  TempDir dir;
  const std::string file = dir.write("not_a_folder", "x");
  expect_bad_input(run_strata(dir, args({"run", affine_model(dir), "--dump-outputs", file})),
                   {"--dump-outputs", file});
}

TEST(CliBadInput, ZeroIterations) {
  TempDir dir;
  expect_bad_input(run_strata(dir, {"run", affine_model(dir), "--iter", "0"}), {"--iter"});
}

TEST(Cli, NoArgumentsIsBadInput) {
  TempDir dir;
  EXPECT_EQ(run_strata(dir, {}).code, 2);
}

TEST(Cli, HelpExitsZero) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"run", "--help"});
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("--verify"), std::string::npos) << describe(r);
}

}  // namespace
}  // namespace strata::test
