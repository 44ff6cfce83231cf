// The real binary on real files: run --dump-all/--io-dump/--check-finite, strata compare (two
// dumps or two runs), strata pack and running a packed case; every bad input exits 2.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "io/npy.h"
#include "testutil/cli_util.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

const std::string kWrongConv = "/layer1/layer1.1/conv1/Conv";

std::vector<std::string> quick(std::vector<std::string> a) {
  for (const char* s : {"--iter", "1", "--warmup", "0", "-q"}) a.push_back(s);
  return a;
}

nlohmann::json index_of(const TempDir& dir, const std::string& dump) {
  return nlohmann::json::parse(read_text(dir.path(dump + "/index.json")));
}

// The example with one weight of one convolution changed: what a faulty export or conversion
// looks like.
std::string wrong_weight_model(const TempDir& dir) {
  onnx::ModelProto model;
  std::ifstream in(kExampleModel, std::ios::binary);
  EXPECT_TRUE(model.ParseFromIstream(&in));
  std::string weight;
  for (const onnx::NodeProto& node : model.graph().node())
    if (node.name() == kWrongConv) weight = node.input(1);
  EXPECT_FALSE(weight.empty());
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.name() != weight) continue;
    EXPECT_TRUE(t.has_raw_data());
    float w;
    std::memcpy(&w, t.raw_data().data(), sizeof w);
    w += 0.5f;
    std::memcpy(t.mutable_raw_data()->data(), &w, sizeof w);
  }
  const std::string path = dir.path("wrong.onnx");
  std::ofstream out(path, std::ios::binary);
  EXPECT_TRUE(model.SerializeToOstream(&out));
  return path;
}

// d = x / y; out = d + 1 for x, y float32 [3].
std::string divide_model(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {3});
  m.add_input("y", DType::kF32, {3});
  m.add_initializer("one", Tensor::from<float>({}, {1}));
  m.add_node("Div", {"x", "y"}, {"d"}, "div");
  m.add_node("Add", {"d", "one"}, {"out"}, "add");
  m.add_output("out", DType::kF32, {3});
  return m.save(dir.path("divide.onnx"));
}

// ---- Dumps ----

TEST(DebugCli, DumpAllWritesEveryNodeOutputAndAnIndex) {
  TempDir dir;
  const CliResult r = run_strata(
      dir, quick({"run", kExampleModel, "-i", kExampleImage, "--dump-all", dir.path("dump")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  const nlohmann::json index = index_of(dir, "dump");
  EXPECT_EQ(index["format"], "strata-dump");
  ASSERT_EQ(index["inputs"].size(), 1u);
  EXPECT_EQ(index["inputs"][0]["file"], "image.npy");
  // 15 steps after fusion; the first is the stem's convolution and ReLU.
  ASSERT_EQ(index["nodes"].size(), 15u);
  const nlohmann::json& first = index["nodes"][0];
  EXPECT_EQ(first["op_type"], "FusedConv");
  EXPECT_EQ(first["fused_from"],
            (std::vector<std::string>{"/stem/stem.0/Conv", "/stem/stem.2/Relu"}));
  // Filed under the ONNX value the chain computes, '/' made '_'.
  EXPECT_EQ(first["outputs"][0]["name"], "/stem/stem.2/Relu_output_0");
  EXPECT_EQ(first["outputs"][0]["file"], "_stem_stem.2_Relu_output_0.npy");
  EXPECT_EQ(first["outputs"][0]["shape"], (std::vector<int64_t>{1, 16, 32, 32}));
  for (const nlohmann::json& node : index["nodes"])
    for (const nlohmann::json& out : node["outputs"]) {
      const Tensor t = io::read_npy(dir.path("dump/" + out["file"].get<std::string>()));
      EXPECT_EQ(t.shape(), out["shape"].get<std::vector<int64_t>>()) << out["name"];
    }
  // The last value is the model's output, as --dump-outputs writes it.
  const CliResult o = run_strata(
      dir, quick({"run", kExampleModel, "-i", kExampleImage, "--dump-outputs", dir.path("out")}));
  ASSERT_EQ(o.code, 0) << describe(o);
  EXPECT_EQ(io::read_npy(dir.path("dump/probabilities.npy")).to_double(),
            io::read_npy(dir.path("out/probabilities.npy")).to_double());
}

TEST(DebugCli, NoOptimizeDumpsEveryOnnxNodeAndTheFilesLineUp) {
  TempDir dir;
  ASSERT_EQ(run_strata(dir, quick({"run", kExampleModel, "-i", kExampleImage, "--dump-all",
                                   dir.path("fused")}))
                .code,
            0);
  const CliResult r = run_strata(dir, quick({"run", kExampleModel, "-i", kExampleImage,
                                             "--no-optimize", "--dump-all", dir.path("all")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  onnx::ModelProto model;
  std::ifstream in(kExampleModel, std::ios::binary);
  ASSERT_TRUE(model.ParseFromIstream(&in));
  const nlohmann::json index = index_of(dir, "all");
  ASSERT_EQ(index["nodes"].size(), size_t(model.graph().node_size()));
  for (int n = 0; n < model.graph().node_size(); ++n)
    EXPECT_EQ(index["nodes"][size_t(n)]["name"], model.graph().node(n).name());
  // Every file of the fused dump has its twin in the full one.
  std::set<std::string> all;
  for (const auto& e : fs::directory_iterator(dir.path("all")))
    all.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(dir.path("fused")))
    EXPECT_TRUE(all.count(e.path().filename().string())) << e.path();
}

TEST(DebugCli, IoDumpWritesOneLineOfFiguresPerValue) {
  TempDir dir;
  const CliResult r = run_strata(
      dir, quick({"run", kExampleModel, "-i", kExampleImage, "--io-dump", dir.path("io.txt")}));
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = read_text(dir.path("io.txt"));
  EXPECT_NE(text.find("FusedConv '/stem/stem.0/Conv' (fused from /stem/stem.0/Conv, "
                      "/stem/stem.2/Relu)"),
            std::string::npos)
      << text;
  const std::string line = line_starting(text, "  probabilities: ");
  for (const char* word :
       {"float32[1,10]", "min ", "max ", "mean ", "sd ", "NaN 0", "Inf 0", "first "})
    EXPECT_NE(line.find(word), std::string::npos) << word << "\n" << text;
}

// ---- compare ----

TEST(DebugCli, CompareOfAgreeingDumpsExitsZero) {
  TempDir dir;
  ASSERT_EQ(run_strata(dir, quick({"run", kExampleModel, "-i", kExampleImage, "--dump-all",
                                   dir.path("fast")}))
                .code,
            0);
  ASSERT_EQ(run_strata(dir, quick({"run", kExampleModel, "-i", kExampleImage, "--reference-kernels",
                                   "--no-optimize", "--dump-all", dir.path("ref")}))
                .code,
            0);
  const CliResult r = run_strata(dir, {"compare", dir.path("fast"), dir.path("ref")});
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("16 values compared, 0 out of tolerance (0 only in A, 13 only in B)"),
            std::string::npos)
      << describe(r);
  EXPECT_NE(r.out.find("all values agree"), std::string::npos) << describe(r);
  for (const char* column : {"max abs", "max rel", "cosine", "ULP", "mismatches"})
    EXPECT_NE(r.out.find(column), std::string::npos) << column << "\n" << describe(r);
  // A folder of .npy files named after the values (as a Python script writes them) works too.
  fs::copy(dir.path("ref"), dir.path("plain"));
  fs::remove(dir.path("plain/index.json"));
  const CliResult p = run_strata(dir, {"compare", dir.path("fast"), dir.path("plain")});
  EXPECT_EQ(p.code, 0) << describe(p);
}

TEST(DebugCli, CompareFindsTheLayerWithTheWrongWeight) {
  TempDir dir;
  const std::string wrong = wrong_weight_model(dir);
  // Dumps with the graph passes on (convolutions fused with their ReLUs) and off.
  for (const std::string& model : {kExampleModel, wrong})
    for (const char* opt : {"--layout=auto", "--no-optimize"}) {
      const std::string name = std::string(model == kExampleModel ? "good" : "bad") + opt;
      ASSERT_EQ(run_strata(dir, quick({"run", model, "-i", kExampleImage, opt, "--dump-all",
                                       dir.path(name)}))
                    .code,
                0);
    }
  auto first_divergent = [&](const std::string& a, const std::string& b) {
    const CliResult r = run_strata(dir, {"compare", dir.path(a), dir.path(b)});
    EXPECT_EQ(r.code, 1) << describe(r);
    return line_starting(r.out, "first divergent node:");
  };
  const std::string fused = "first divergent node: " + kWrongConv + " (FusedConv)";
  EXPECT_EQ(first_divergent("bad--layout=auto", "good--layout=auto"), fused);
  EXPECT_EQ(first_divergent("bad--no-optimize", "good--no-optimize"),
            "first divergent node: " + kWrongConv + " (Conv)");
  // Fused against unfused: the fused order, whose values both dumps hold.
  EXPECT_EQ(first_divergent("bad--no-optimize", "good--layout=auto"), fused);
  EXPECT_EQ(first_divergent("good--layout=auto", "bad--no-optimize"), fused);
  // The same from a model and a saved dump in one command.
  const CliResult r = run_strata(
      dir, {"compare", wrong, "-i", kExampleImage, "--against", dir.path("good--no-optimize")});
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_EQ(line_starting(r.out, "first divergent node:"),
            "first divergent node: " + kWrongConv + " (FusedConv)")
      << describe(r);
}

TEST(DebugCli, CompareAgainstOtherConfigurations) {
  TempDir dir;
  for (const char* against : {"reference", "nchw", "nhwc", "threads=2"}) {
    const CliResult r =
        run_strata(dir, {"compare", kExampleModel, "-i", kExampleImage, "--against", against});
    EXPECT_EQ(r.code, 0) << against << "\n" << describe(r);
    EXPECT_NE(r.out.find("all values agree"), std::string::npos) << describe(r);
  }
  const CliResult r = run_strata(dir, {"compare", kExampleModel, "-i", kExampleImage, "--against",
                                       "reference", "--rtol", "0", "--atol", "0"});
  EXPECT_EQ(r.code, 1) << "fast and reference kernels round differently\n" << describe(r);
}

TEST(DebugCli, CompareBadInputExitsTwo) {
  TempDir dir;
  ASSERT_EQ(run_strata(dir, quick({"run", kExampleModel, "-i", kExampleImage, "--dump-all",
                                   dir.path("a")}))
                .code,
            0);
  ASSERT_EQ(run_strata(dir, quick({"run", divide_model(dir), "-i", "x=[1,2,3]", "-i", "y=[1,1,1]",
                                   "--dump-all", dir.path("other")}))
                .code,
            0);
  expect_bad_input(run_strata(dir, {"compare", dir.path("a"), dir.path("other")}),
                   {"different models"});
  // Two folders without index.json.
  fs::copy(dir.path("a"), dir.path("plain1"));
  fs::remove(dir.path("plain1/index.json"));
  fs::copy(dir.path("plain1"), dir.path("plain2"));
  expect_bad_input(run_strata(dir, {"compare", dir.path("plain1"), dir.path("plain2")}),
                   {"index.json"});
  // A value with another shape.
  io::write_npy(dir.path("plain2/probabilities.npy"), Tensor::zeros(DType::kF32, {1, 9}));
  expect_bad_input(run_strata(dir, {"compare", dir.path("a"), dir.path("plain2")}),
                   {"'probabilities'", "float32[1,10]", "float32[1,9]"});
  // An unreadable file, a file the index lists but is gone, a missing folder.
  dir.write("plain2/probabilities.npy", "garbage");
  expect_bad_input(run_strata(dir, {"compare", dir.path("a"), dir.path("plain2")}),
                   {"probabilities.npy", "not an npy file"});
  fs::copy(dir.path("a"), dir.path("broken"));
  fs::remove(dir.path("broken/probabilities.npy"));
  expect_bad_input(run_strata(dir, {"compare", dir.path("broken"), dir.path("a")}),
                   {"probabilities.npy", "missing"});
  expect_bad_input(run_strata(dir, {"compare", dir.path("a"), dir.path("nowhere")}),
                   {"nowhere", "no such dump"});
  expect_bad_input(run_strata(dir, {"compare", dir.path("a")}), {"two dumps"});
  expect_bad_input(run_strata(dir, {"compare", kExampleModel, "--against", "fastest"}),
                   {"fastest", "neither reference"});
}

// ---- pack ----

TEST(DebugCli, PackedCaseRunsAndVerifies) {
  TempDir dir;
  const CliResult p =
      run_strata(dir, {"pack", kExampleModel, "-i", kExampleImage, "-o", dir.path("case")});
  ASSERT_EQ(p.code, 0) << describe(p);
  EXPECT_TRUE(fs::exists(dir.path("case/model.onnx")));
  EXPECT_TRUE(fs::exists(dir.path("case/test_data_set_0/input_0.pb")));
  EXPECT_TRUE(fs::exists(dir.path("case/test_data_set_0/output_0.pb")));
  EXPECT_NE(p.out.find("check it with: strata run " + dir.path("case")), std::string::npos);

  const CliResult r = run_strata(dir, quick({"run", dir.path("case"), "--reference-kernels"}));
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(line_starting(r.out, "verify").find("probabilities: ok"), std::string::npos)
      << describe(r);

  // Another machine computing something else: the case says so.
  Tensor wrong = Tensor::zeros(DType::kF32, {1, 10});
  wrong.data<float>()[3] = 1;
  write_tensor_pb(dir.path("case/test_data_set_0/output_0.pb"), wrong, "probabilities");
  const CliResult m = run_strata(dir, quick({"run", dir.path("case")}));
  EXPECT_EQ(m.code, 1) << describe(m);
  EXPECT_NE(line_starting(m.out, "verify").find("MISMATCH"), std::string::npos) << describe(m);

  expect_bad_input(
      run_strata(dir, {"pack", kExampleModel, "-i", kExampleImage, "-o", dir.path("case")}),
      {"already holds a test case"});
  dir.mkdir("empty");
  expect_bad_input(run_strata(dir, quick({"run", dir.path("empty")})), {"empty", "model.onnx"});
}

// ---- --check-finite ----

TEST(DebugCli, CheckFiniteStopsAtTheFirstNodeWithNaNOrInf) {
  TempDir dir;
  const std::string model = divide_model(dir);
  const CliResult ok = run_strata(dir, {"run", model, "-i", "x=[1,2,3]", "-i", "y=[1,1,1]",
                                        "--check-finite", "--iter", "1", "--warmup", "0"});
  EXPECT_EQ(ok.code, 0) << describe(ok);
  EXPECT_EQ(line_starting(ok.out, "finite"), "finite     every node's outputs are finite");

  const CliResult r =
      run_strata(dir, {"run", model, "-i", "x=[1,2,3]", "-i", "y=[1,0,1]", "--check-finite", "-q"});
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_EQ(line_starting(r.out, "finite"),
            "finite     node 'div' (Div) wrote 0 NaN and 1 Inf among the 3 values of 'd'; its "
            "inputs were finite")
      << describe(r);
  EXPECT_TRUE(line_starting(r.out, "latency").empty()) << "stops before timing\n" << describe(r);

  const CliResult p = run_strata(dir, {"profile", model, "-i", "x=[0,2,3]", "-i", "y=[0,1,1]",
                                       "--check-finite", "--no-roofline"});
  EXPECT_EQ(p.code, 1) << describe(p);
  EXPECT_EQ(line_starting(p.out, "finite"),
            "finite: node 'div' (Div) wrote 1 NaN and 0 Inf among the 3 values of 'd'; its inputs "
            "were finite")
      << describe(p);
}

}  // namespace
}  // namespace strata::test
