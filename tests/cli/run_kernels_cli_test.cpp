// `strata run` with the fast-kernel options: --verbose (passes, kernels, layouts, fused nodes),
// --layout, --reference-kernels, --no-optimize, --fast-run and --algo-cache, and bad values.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "testutil/cli_util.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

TEST(RunKernelsCli, VerboseListsPassesKernelsAndFusedNodes) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--iter", "1", "--verbose"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "passes     fuse_qdq 0, fold_constants")) << r.out;
  EXPECT_TRUE(contains(r.out, "fuse_conv")) << r.out;
  EXPECT_TRUE(contains(r.out, "FusedConv")) << r.out;
  EXPECT_TRUE(contains(r.out, "fused from ")) << r.out;
  EXPECT_TRUE(contains(r.out, "kernel onednn:")) << r.out;
}

// The example's outputs from the reference kernels, dumped for --verify; empty when that failed.
std::string reference_outputs(const TempDir& dir) {
  const std::string reference = dir.path("reference");
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--iter", "1", "-q",
                                       "--reference-kernels", "--dump-outputs", reference});
  EXPECT_EQ(r.code, 0) << r.err;
  return r.code == 0 ? reference : std::string();
}

TEST(RunKernelsCli, ReferenceKernelsAndNoOptimize) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--iter", "1", "--verbose",
                                       "--reference-kernels", "--no-optimize"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "passes     none (--no-optimize)")) << r.out;
  EXPECT_FALSE(contains(r.out, "kernel onednn:")) << r.out;
  EXPECT_TRUE(contains(r.out, "fast kernels are off")) << r.out;
}

TEST(RunKernelsCli, EveryLayoutGivesTheSameOutputs) {
  TempDir dir;
  const std::string reference = reference_outputs(dir);
  ASSERT_FALSE(reference.empty());
  for (const char* layout : {"nchw", "nhwc", "blocked", "auto"}) {
    const CliResult r =
        run_strata(dir, {"run", kExampleModel, "--iter", "1", "-q", "--layout", layout, "--verify",
                         reference, "--rtol", "1e-4", "--atol", "1e-5"});
    EXPECT_EQ(r.code, 0) << layout << ": " << r.out << r.err;
  }
}

TEST(RunKernelsCli, BadLayoutIsABadInput) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--layout", "nhcw"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "--layout must be nchw, nhwc, blocked or auto, not 'nhcw'")) << r.err;
}

TEST(RunKernelsCli, FastRunSavesChoicesThatTheNextRunReuses) {
  TempDir dir;
  const std::string reference = reference_outputs(dir);
  ASSERT_FALSE(reference.empty());
  const std::string cache = dir.path("algo.json");
  const CliResult timed =
      run_strata(dir, {"run", kExampleModel, "--iter", "1", "--verbose", "--fast-run",
                       "--algo-cache", cache, "--verify", reference, "--rtol", "1e-4", "--atol",
                       "1e-5", "--json", dir.path("timed.json")});
  ASSERT_EQ(timed.code, 0) << timed.out << timed.err;
  EXPECT_TRUE(contains(timed.out, ": fast-run: ")) << timed.out;
  EXPECT_TRUE(contains(timed.out, " ms")) << timed.out;
  std::ifstream report(dir.path("timed.json"));
  const nlohmann::json plan = nlohmann::json::parse(report)["plan"];
  ASSERT_GE(plan["kernels"].size(), 1u);
  EXPECT_EQ(plan["kernels"][0]["reason"].get<std::string>().rfind("fast-run: ", 0), 0u);
  EXPECT_GE(plan["kernels"][0]["threads"].get<int>(), 1);
  const CliResult reused =
      run_strata(dir, {"run", kExampleModel, "--iter", "1", "--verbose", "--algo-cache", cache,
                       "--verify", reference, "--rtol", "1e-4", "--atol", "1e-5"});
  ASSERT_EQ(reused.code, 0) << reused.out << reused.err;
  EXPECT_TRUE(contains(reused.out, ": algo cache " + cache + ": fast-run: ")) << reused.out;
  EXPECT_FALSE(contains(reused.err, "algo cache")) << reused.err;
}

TEST(RunKernelsCli, AlgoCacheWithoutFastRunSaysWhenThereIsNoneYet) {
  TempDir dir;
  const std::string cache = dir.path("none.json");
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--iter", "1", "--algo-cache", cache});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, cache + ": no algo cache there yet")) << r.err;
}

TEST(RunKernelsCli, FastRunNeedsTheFastKernels) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"run", kExampleModel, "--fast-run", "--reference-kernels"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "--fast-run times fast kernels")) << r.err;
}

}  // namespace
// y = Relu(Einsum("ijk,jk->i", a, b)) with a [96, 96, 32]: the Einsum (two labels contracted:
// not a matrix product einsum_as_matmul rewrites; no fast kernel) is nearly all of it.
std::string einsum_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {96, 96, 32});
  m.add_input("b", DType::kF32, {96, 32});
  set_attr(m.add_node("Einsum", {"a", "b"}, {"p"}, "slow_einsum"), "equation",
           std::string("ijk,jk->i"));
  m.add_node("Relu", {"p"}, {"y"}, "relu");
  m.add_output("y");
  return m.save(dir.path("einsum.onnx"));
}

TEST(RunKernelsCli, ABigStepOnAReferenceKernelIsNamedInAWarning) {
  TempDir dir;
  const std::string model = einsum_model(dir);
  for (const char* command : {"run", "profile"}) {
    std::vector<std::string> a = {command, model, "--iter", "3"};
    if (std::string(command) == "profile") a.push_back("--no-roofline");
    const CliResult r = run_strata(dir, a);
    ASSERT_EQ(r.code, 0) << command << ": " << r.err;
    const std::string all = r.out + r.err;
    EXPECT_TRUE(
        contains(all, "node 'slow_einsum' (Einsum) runs on the op's reference kernel and takes"))
        << command << ":\n"
        << all;
    EXPECT_TRUE(contains(all, "no fast kernel serves this op")) << command << ":\n" << all;
    EXPECT_FALSE(contains(all, "node 'relu'")) << command << ":\n" << all;
  }
  // Asked for: no warning.
  const CliResult r = run_strata(dir, {"run", model, "--iter", "3", "--reference-kernels"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "slow_einsum")) << r.err;
}

}  // namespace strata::test
