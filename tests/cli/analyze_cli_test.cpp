// The real `strata analyze` binary: its blocks and tables, --dim/--shape, --json, and bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testutil/cli_util.h"
#include "testutil/control_flow_models.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

// y = x[N,64] · W[64,32]: 2048·N MACs.
std::string matmul_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 64});
  m.add_initializer("W", Tensor::zeros(DType::kF32, {64, 32}));
  m.add_node("MatMul", {"x", "W"}, {"y"}, "/block/proj/MatMul");
  m.add_node("Relu", {"y"}, {"z"}, "/block/act/Relu");
  m.add_output("z");
  return m.save(dir.path("matmul.onnx"));
}

// A Loop whose trip count M is a model input: its FLOPs are a formula in repeat.trips, which
// --dim sizes; the JSON says which nodes are upper bounds.
TEST(AnalyzeCli, LoopTripCountIsASymbolThatDimSizes) {
  TempDir dir;
  const std::string model = loop_model().save(dir.path("loop.onnx"));
  CliResult r = run_strata(dir, {"analyze", model});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("2·repeat.trips"), std::string::npos) << describe(r);
  const std::string json_path = dir.path("a.json");
  r = run_strata(dir, {"analyze", model, "--dim", "repeat.trips=7", "--json", json_path});
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path));
  bool found = false;
  for (const nlohmann::json& n : j["nodes"])
    if (n["name"] == "repeat") {
      found = true;
      EXPECT_NE(n["note"].get<std::string>().find("7 iterations (given)"), std::string::npos)
          << n.dump();
    }
  EXPECT_TRUE(found);
  EXPECT_TRUE(j.contains("upper_bounds")) << j.dump();
  expect_bad_input(run_strata(dir, {"analyze", model, "--dim", "other.trips=3"}),
                   {"other.trips", "repeat.trips"});
}

TEST(AnalyzeCli, ExampleModelPrintsTimesTotalsAndTables) {
  TempDir dir;
  const CliResult r = run_strata(dir, {"analyze", kExampleModel});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "load").find("ms (weights not read)"), std::string::npos)
      << describe(r);
  EXPECT_NE(line_starting(r.out, "analysis").find("ms ("), std::string::npos) << describe(r);
  for (const char* block : {"totals", "by op type", "by scope", "by node"})
    EXPECT_NE(r.out.find(std::string("\n") + block), std::string::npos) << block << describe(r);
  EXPECT_NE(line_starting(r.out, "  parameters").find("("), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "  peak activations").find("B"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, SymbolicDimsGiveFormulasAndDimGivesValues) {
  TempDir dir;
  const std::string model = matmul_model(dir);
  CliResult r = run_strata(dir, {"analyze", model, "--macs"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "  MACs").find("2048·N"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "symbols").find("N (no size"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("[N,32]"), std::string::npos) << describe(r);

  r = run_strata(dir, {"analyze", model, "--dim", "N=8", "--macs"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string macs = line_starting(r.out, "  MACs");
  EXPECT_NE(macs.find("2048·N"), std::string::npos) << describe(r);
  EXPECT_NE(macs.find("= 16.38 k at N=8"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("[8,32]"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, ShapeFixesOrRenamesInputDims) {
  TempDir dir;
  const std::string model = matmul_model(dir);
  CliResult r = run_strata(dir, {"analyze", model, "--shape", "x=3x64", "--by", "type"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "  MACs").find("6.14 k"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("by node"), std::string::npos) << describe(r);
  r = run_strata(dir, {"analyze", model, "--shape", "x=Bx64", "--macs"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "  MACs").find("2048·B"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, JsonHasTimesTotalsNodesAndFormulas) {
  TempDir dir;
  const std::string json_path = dir.path("analysis.json");
  const CliResult r = run_strata(dir, {"analyze", matmul_model(dir), "--json", json_path});
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json j = nlohmann::json::parse(read_text(json_path));
  EXPECT_GT(j["load_ms"].get<double>(), 0);
  EXPECT_GT(j["analysis_ms"].get<double>(), 0);
  EXPECT_EQ(j["totals"]["params"], 2048);
  EXPECT_TRUE(j["totals"]["macs"].is_null());  // N has no size
  EXPECT_EQ(j["totals"]["formulas"]["macs"]["text"], "2048·N");
  EXPECT_EQ(j["totals"]["formulas"]["flops"]["terms"][0]["powers"]["N"], 1);
  ASSERT_TRUE(j["totals"].contains("peak_activation_bytes"));
  ASSERT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][0]["name"], "/block/proj/MatMul");
  EXPECT_EQ(j["nodes"][0]["outputs"][0]["shape"], nlohmann::json::parse(R"(["N", 32])"));
  EXPECT_EQ(j["symbols"][0]["name"], "N");

  const CliResult sized =
      run_strata(dir, {"analyze", matmul_model(dir), "--dim", "N=2", "--json", json_path});
  ASSERT_EQ(sized.code, 0) << describe(sized);
  const nlohmann::json s = nlohmann::json::parse(read_text(json_path));
  EXPECT_EQ(s["totals"]["macs"], 4096);
  EXPECT_EQ(s["nodes"][1]["flops"], 64);  // Relu on [2,32]
}

TEST(AnalyzeCli, TrainingAndMacsHeadline) {
  TempDir dir;
  const CliResult r =
      run_strata(dir, {"analyze", matmul_model(dir), "--dim", "N=4", "--training", "--macs"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("training estimate"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "  total with Adam").find("B"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("bwd FLOPs"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "type").find("MACs"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, MissingWeightsFileIsAWarningNotAnError) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1, 64});
  m.add_external_initializer("W", DType::kF32, {64, 32}, "weights.bin");
  m.add_node("MatMul", {"x", "W"}, {"y"}, "mm");
  m.add_output("y");
  const CliResult r = run_strata(dir, {"analyze", m.save(dir.path("external.onnx"))});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.err.find("warning"), std::string::npos) << describe(r);
  EXPECT_NE(line_starting(r.out, "  parameters").find("2.05 k"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, DataDependentShapesAreAWarningAndUnknownNotZero) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 6});
  m.add_input("target", DType::kI64, {2});
  m.add_node("Reshape", {"x", "target"}, {"r"}, "reshape");
  m.add_node("Relu", {"r"}, {"y"}, "relu");
  m.add_output("y");
  const CliResult r = run_strata(dir, {"analyze", m.save(dir.path("dd.onnx")), "--by", "node"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.err.find("warning: output shapes known only at run time at 1 node: Reshape node "
                       "'reshape'"),
            std::string::npos)
      << describe(r);
  EXPECT_NE(r.out.find("its input shapes are unknown (after Reshape node 'reshape')"),
            std::string::npos)
      << describe(r);
  EXPECT_NE(line_starting(r.out, "  peak activations").find("?"), std::string::npos) << describe(r);
}

TEST(AnalyzeCli, BadInputIsOneSentenceAndExitTwo) {
  TempDir dir;
  const std::string bad = dir.write("bad.onnx", "this is not a model");
  expect_bad_input(run_strata(dir, {"analyze", bad}), {"bad.onnx"});
  expect_bad_input(run_strata(dir, {"analyze", dir.path("missing.onnx")}), {"missing.onnx"});
  const std::string model = matmul_model(dir);
  expect_bad_input(run_strata(dir, {"analyze", model, "--dim", "Q=3"}), {"'Q'", "N"});
  expect_bad_input(run_strata(dir, {"analyze", model, "--dim", "N=x"}), {"--dim N"});
  expect_bad_input(run_strata(dir, {"analyze", model, "--shape", "x=1x-3"}), {"--shape x"});
  expect_bad_input(run_strata(dir, {"analyze", model, "--shape", "y=1x64"}), {"'y'"});
  expect_bad_input(run_strata(dir, {"analyze", model, "--by", "colour"}), {"--by"});
  expect_bad_input(run_strata(dir, {"analyze", model, "--json", dir.path("no/such/dir/a.json")}),
                   {"a.json"});
  ModelBuilder unranked;
  unranked.add_input_unranked("x", DType::kF32);
  unranked.add_node("Relu", {"x"}, {"y"}, "relu");
  unranked.add_output("y");
  expect_bad_input(run_strata(dir, {"analyze", unranked.save(dir.path("unranked.onnx"))}),
                   {"'x'", "--shape"});
}

}  // namespace
}  // namespace strata::test
