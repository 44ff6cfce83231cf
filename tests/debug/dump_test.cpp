// Dumps: every value of one run recorded plain (blocked layouts converted), written as .npy files
// with index.json, read back; folders of .npy and .npz archives; the text summary.
#include "debug/dump.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "passes/optimize.h"
#include "passes/specialize_inputs.h"
#include "runtime/model.h"
#include "runtime/verify.h"
#include "testutil/cli_util.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

// y = (x * 2 + 1) with x [2,3]; the Mul result "twice" is a value of its own.
ir::Graph affine_graph(const TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  m.add_initializer("two", Tensor::from<float>({}, {2}));
  m.add_initializer("one", Tensor::from<float>({}, {1}));
  m.add_node("Mul", {"x", "two"}, {"layer/twice:0"}, "mul");
  m.add_node("Add", {"layer/twice:0", "one"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {2, 3});
  return runtime::load_model(m.save(dir.path("affine.onnx"))).graph;
}

debug::Dump run_affine(const ir::Graph& g, const Tensor& x) {
  runtime::Session session(g, {{DType::kF32, {2, 3}}}, {});
  return debug::record_run(session, {&x}, "abc");
}

TEST(Dump, RecordsEveryNodeOutputInOrder) {
  TempDir dir;
  const ir::Graph g = affine_graph(dir);
  const Tensor x = Tensor::from<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  const debug::Dump d = run_affine(g, x);
  EXPECT_TRUE(d.ordered);
  EXPECT_EQ(d.model_signature, "abc");
  EXPECT_EQ(d.graph_inputs, std::vector<std::string>{"x"});
  ASSERT_EQ(d.nodes.size(), 2u);
  EXPECT_EQ(d.nodes[0].name, "mul");
  EXPECT_EQ(d.nodes[0].op_type, "Mul");
  EXPECT_EQ(d.nodes[0].inputs, (std::vector<std::string>{"x", "two"}));
  EXPECT_EQ(d.nodes[1].outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(d.find("layer/twice:0")->to_double(), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(d.find("y")->to_double(), (std::vector<double>{1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(d.find("x")->to_double(), x.to_double());
}

TEST(Dump, BlockedLayoutsAreWrittenPlain) {
  // The example CNN runs its convolutions blocked (nChw16c or nChw8c) with the fast kernels: every
  // recorded value must equal the reference kernels' plain one.
  ir::Graph g = runtime::load_model(kExampleModel).graph;
  passes::specialize_inputs(g, {{1, 3, 32, 32}});
  passes::optimize_graph(g);
  Tensor x = Tensor::zeros(DType::kF32, {1, 3, 32, 32});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i % 97) / 97.0f - 0.3f;
  runtime::Session fast(g, {{DType::kF32, {1, 3, 32, 32}}}, {});
  bool blocked = false;
  for (const runtime::StepInfo& s : fast.steps())
    blocked |= s.layout == "nChw16c" || s.layout == "nChw8c";
  ASSERT_TRUE(blocked) << "the example no longer runs blocked; the test needs another model";
  runtime::SessionOptions reference_options;
  reference_options.fast_kernels = false;
  runtime::Session reference(g, {{DType::kF32, {1, 3, 32, 32}}}, reference_options);
  const debug::Dump a = debug::record_run(fast, {&x}, "");
  const debug::Dump b = debug::record_run(reference, {&x}, "");
  ASSERT_EQ(a.values.size(), b.values.size());
  for (const auto& [name, t] : a.values) {
    const runtime::Comparison c = runtime::compare(t, b.values.at(name), {1e-4, 1e-5});
    EXPECT_TRUE(c.ok) << name << ": " << c.problem;
    EXPECT_EQ(t.layout(), Layout::kPlain);
  }
}

TEST(Dump, ViewsInChannelsLastAreWrittenPlain) {
  // A Transpose to NHWC of a channels-last convolution output is a view of the same bytes, which
  // are plain for the transposed shape.
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1, 3, 6, 6});
  Tensor w = Tensor::zeros(DType::kF32, {16, 3, 3, 3});
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = float(i % 7) / 7.0f - 0.4f;
  m.add_initializer("w", w);
  m.add_node("Conv", {"x", "w"}, {"c"}, "conv");
  m.add_node("Transpose", {"c"}, {"t"}, "transpose");
  set_attr(*m.graph().mutable_node(1), "perm", std::vector<int64_t>{0, 2, 3, 1});
  m.add_node("Relu", {"t"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {1, 4, 4, 16});
  const ir::Graph g = runtime::load_model(m.save(dir.path("nhwc.onnx"))).graph;
  Tensor x = Tensor::zeros(DType::kF32, {1, 3, 6, 6});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i % 11) / 11.0f;
  runtime::SessionOptions nhwc;
  nhwc.layout = kernels::LayoutPolicy::kChannelsLast;
  runtime::Session fast(g, {{DType::kF32, {1, 3, 6, 6}}}, nhwc);
  ASSERT_EQ(fast.steps()[0].layout, "nhwc");
  runtime::SessionOptions reference_options;
  reference_options.fast_kernels = false;
  runtime::Session reference(g, {{DType::kF32, {1, 3, 6, 6}}}, reference_options);
  const debug::Dump a = debug::record_run(fast, {&x}, "");
  const debug::Dump b = debug::record_run(reference, {&x}, "");
  for (const char* name : {"c", "t", "y"}) {
    const runtime::Comparison c = runtime::compare(*a.find(name), *b.find(name), {1e-4, 1e-5});
    EXPECT_TRUE(c.ok) << name << ": " << c.problem;
  }
}

TEST(Dump, ModelSignatureIsTheStructureNotTheWeights) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_initializer("w", Tensor::from<float>({2}, {1, 2}));
  m.add_node("Mul", {"x", "w"}, {"y"}, "mul");
  m.add_output("y", DType::kF32, {2});
  const std::string base =
      debug::model_signature(runtime::load_model(m.save(dir.path("a.onnx"))).graph);
  EXPECT_EQ(base.size(), 64u);
  m.graph().mutable_initializer(0)->set_raw_data(std::string(8, '\0'));  // other weights
  EXPECT_EQ(debug::model_signature(runtime::load_model(m.save(dir.path("b.onnx"))).graph), base);
  m.graph().mutable_node(0)->set_name("scale");  // another node
  EXPECT_NE(debug::model_signature(runtime::load_model(m.save(dir.path("c.onnx"))).graph), base);
}

TEST(Dump, WritesNpyFilesAndAnIndexThatReadBack) {
  TempDir dir;
  const ir::Graph g = affine_graph(dir);
  const Tensor x = Tensor::from<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  const debug::Dump d = run_affine(g, x);
  debug::write_dump(d, dir.path("dump"));
  // Names become file names as --dump-outputs makes them.
  EXPECT_EQ(io::read_npy(dir.path("dump/layer_twice_0.npy")).to_double(),
            (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const nlohmann::json index = nlohmann::json::parse(read_text(dir.path("dump/index.json")));
  EXPECT_EQ(index["nodes"][0]["outputs"][0]["file"], "layer_twice_0.npy");
  EXPECT_EQ(index["nodes"][0]["outputs"][0]["name"], "layer/twice:0");
  EXPECT_EQ(index["nodes"][0]["outputs"][0]["shape"], (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(index["nodes"][1]["op_type"], "Add");

  const debug::Dump r = debug::read_dump(dir.path("dump"));
  EXPECT_TRUE(r.ordered);
  EXPECT_EQ(r.model_signature, "abc");
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].inputs, d.nodes[0].inputs);
  EXPECT_EQ(r.find("y")->to_double(), d.find("y")->to_double());
}

TEST(Dump, ReadsFoldersOfNpyAndNpzArchives) {
  TempDir dir;
  dir.mkdir("plain");
  io::write_npy(dir.path("plain/layer_twice_0.npy"), Tensor::from<float>({2}, {1, 2}));
  const debug::Dump folder = debug::read_dump(dir.path("plain"));
  EXPECT_FALSE(folder.ordered);
  ASSERT_NE(folder.find("layer/twice:0"), nullptr);  // found by its file name
  const debug::Dump npz =
      debug::read_dump(std::string(STRATA_SOURCE_DIR) + "/tests/io/data/stored.npz");
  EXPECT_FALSE(npz.ordered);
  ASSERT_NE(npz.find("layer/out:0"), nullptr);
  EXPECT_EQ(npz.find("layer/out:0")->to_double(), (std::vector<double>{1, -2, 3}));
}

TEST(Dump, BadFoldersFailWithOneSentence) {
  TempDir dir;
  expect_error([&] { debug::read_dump(dir.path("nowhere")); }, {"nowhere", "no such dump"});
  dir.mkdir("empty");
  expect_error([&] { debug::read_dump(dir.path("empty")); }, {"empty", "neither an index.json"});
  dir.write("file.txt", "hello");
  expect_error([&] { debug::read_dump(dir.path("file.txt")); }, {"file.txt", "not a dump"});

  const ir::Graph g = affine_graph(dir);
  const Tensor x = Tensor::from<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  debug::write_dump(run_affine(g, x), dir.path("dump"));
  std::filesystem::remove(dir.path("dump/y.npy"));
  expect_error([&] { debug::read_dump(dir.path("dump")); }, {"y.npy", "missing"});
  io::write_npy(dir.path("dump/y.npy"), Tensor::from<float>({3}, {1, 2, 3}));
  expect_error([&] { debug::read_dump(dir.path("dump")); }, {"y.npy", "index.json says"});
  dir.write("dump/y.npy", "not an npy file");
  expect_error([&] { debug::read_dump(dir.path("dump")); }, {"y.npy", "not an npy"});
  dir.write("dump/index.json", "{\"format\": ");
  expect_error([&] { debug::read_dump(dir.path("dump")); }, {"index.json", "not valid JSON"});
  dir.write("dump/index.json", "{\"format\": \"strata-dump\", \"version\": 1}");
  expect_error([&] { debug::read_dump(dir.path("dump")); }, {"index.json", "not a valid"});
}

TEST(Dump, IoSummaryGivesTheFiguresOfEveryValue) {
  TempDir dir;
  const ir::Graph g = affine_graph(dir);
  const Tensor x = Tensor::from<float>({2, 3}, {0, 1, 2, 3, 4, 5});
  const std::string text = debug::io_summary(run_affine(g, x));
  EXPECT_NE(text.find("Mul 'mul'"), std::string::npos) << text;
  // y = 1, 3, ..., 11: mean 6, population sd sqrt(35/3).
  EXPECT_NE(text.find("y: float32[2,3]  min 1  max 11  mean 6  sd 3.41565  NaN 0  Inf 0  first 1 "
                      "3 5 7 9 11"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace strata::test
