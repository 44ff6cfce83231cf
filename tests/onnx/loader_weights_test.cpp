// Loading weights: running loads every initializer (views of the mapped file where aligned);
// analysing loads dtype and shape, reading only small tensors, and tolerates missing external data.
// Bad files fail the same way in both modes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "onnx/loader.h"
#include "onnx/tensor_proto.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using onnx_import::kSmallInitializerBytes;
using onnx_import::load_model;
using onnx_import::LoadOptions;

const LoadOptions kRun{};
const LoadOptions kAnalyse{.read_weights = false};

const ir::Value& value_named_or_throw(const ir::Graph& g, const std::string& name) {
  const ir::ValueId id = g.find_value(name);
  if (id == ir::kNoValue) throw std::runtime_error("no value " + name);
  return g.values.at(size_t(id));
}

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * 0.5f;
  return v;
}

std::vector<double> as_double(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

// x[batch,N] → MatMul(W) → MatMul(W2) → Add(b) → Reshape(target) → y. W (raw) and W2 (typed) are
// large; b (typed) and target (raw int64) are small: what an analysis needs and what it must not
// read.
constexpr int64_t kN = 160;  // W and W2: 160x160 floats, 100 KiB each
ModelBuilder weights_model() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"batch", kN});
  m.add_node("MatMul", {"x", "W"}, {"h"}, "matmul");
  m.add_node("MatMul", {"h", "W2"}, {"h2"}, "matmul2");
  m.add_node("Add", {"h2", "b"}, {"a"}, "add");
  m.add_node("Reshape", {"a", "target"}, {"y"}, "reshape");
  m.add_output("y");
  m.add_initializer("W", Tensor::from<float>({kN, kN}, iota(kN * kN)));
  m.add_float_initializer("W2", {kN, kN}, iota(kN * kN));
  m.add_float_initializer("b", {kN}, iota(kN));
  m.add_initializer("target", Tensor::from<int64_t>({3}, {0, 2, kN / 2}));
  return m;
}

TEST(LoaderWeights, RunModeReadsEveryInitializer) {
  TempDir dir;
  const ir::Graph g = load_model(weights_model().save(dir.path("m.onnx")), kRun).graph;
  for (const char* name : {"W", "W2"}) {
    const ir::Value& v = value_named_or_throw(g, name);
    EXPECT_TRUE(v.is_initializer);
    ASSERT_TRUE(v.constant) << name;
    EXPECT_EQ(v.constant->to_double(), as_double(iota(kN * kN))) << name;
  }
  EXPECT_EQ(value_named_or_throw(g, "target").constant->to_int64(),
            (std::vector<int64_t>{0, 2, kN / 2}));
}

TEST(LoaderWeights, AnalysisModeReadsOnlySmallInitializers) {
  TempDir dir;
  const ir::Graph g = load_model(weights_model().save(dir.path("m.onnx")), kAnalyse).graph;
  for (const char* name : {"W", "W2"}) {  // raw and typed, both over the limit
    const ir::Value& v = value_named_or_throw(g, name);
    ASSERT_GT(kN * kN * 4, kSmallInitializerBytes);
    EXPECT_TRUE(v.is_initializer) << name;
    EXPECT_FALSE(v.constant) << name << " was read";
    EXPECT_EQ(v.dtype, DType::kF32);
    EXPECT_TRUE(v.shape_known);
    EXPECT_EQ(v.shape.str(), "[160,160]");
  }
  EXPECT_EQ(value_named_or_throw(g, "b").constant->to_double(), as_double(iota(kN)));
  const ir::Value& target = value_named_or_throw(g, "target");
  ASSERT_TRUE(target.constant) << "a shape operand is small: read";
  EXPECT_EQ(target.constant->to_int64(), (std::vector<int64_t>{0, 2, kN / 2}));
  EXPECT_TRUE(g.inputs.size() == 1 && g.values[size_t(g.inputs[0])].name == "x");
}

TEST(LoaderWeights, AnalysisModeInfersShapesThroughUnreadWeights) {
  TempDir dir;
  const runtime::Model model =
      runtime::load_model(weights_model().save(dir.path("m.onnx")), kAnalyse);
  const ir::Value& y = value_named_or_throw(model.graph, "y");
  ASSERT_TRUE(y.shape_known);
  EXPECT_EQ(y.shape.str(), "[batch,2,80]");
  EXPECT_EQ(model.shapes.unknown, 0u);
}

TEST(LoaderWeights, AModelLoadedWithoutWeightsCannotBeRun) {
  TempDir dir;
  const runtime::Model model =
      runtime::load_model(weights_model().save(dir.path("m.onnx")), kAnalyse);
  try {
    runtime::Session session(model.graph, {{DType::kF32, {1, kN}}}, {});
    ADD_FAILURE() << "a session was prepared without weights";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal) << e.what();
    EXPECT_NE(std::string(e.what()).find("without its weights"), std::string::npos) << e.what();
  }
}

TEST(LoaderWeights, ViewsOutliveTheLoaderAndTheFile) {
  TempDir dir;
  const std::string path = weights_model().save(dir.path("m.onnx"));
  std::shared_ptr<const Tensor> w;
  {
    onnx_import::LoadResult loaded = load_model(path, kRun);
    w = value_named_or_throw(loaded.graph, "W").constant;
  }
  std::filesystem::remove(path);
  EXPECT_EQ(w->to_double(), as_double(iota(kN * kN)));
}

TEST(LoaderWeights, BothModesAgreeWithProtobufOnTheExampleModel) {
  const std::string path = std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx";
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto full;
  ASSERT_TRUE(full.ParseFromIstream(&in));
  const ir::Graph run = load_model(path, kRun).graph;
  const ir::Graph analysed = load_model(path, kAnalyse).graph;
  for (const onnx::TensorProto& init : full.graph().initializer()) {
    const Tensor expected = onnx_import::tensor_from_proto(init, "", init.name());
    for (const ir::Graph* g : {&run, &analysed}) {
      const ir::Value& v = value_named_or_throw(*g, init.name());
      ASSERT_TRUE(v.constant) << init.name() << ": every weight here is under the limit";
      EXPECT_EQ(v.constant->shape(), expected.shape()) << init.name();
      ASSERT_EQ(v.constant->nbytes(), expected.nbytes()) << init.name();
      EXPECT_EQ(std::memcmp(v.constant->raw(), expected.raw(), expected.nbytes()), 0)
          << init.name();
    }
  }
}

// ---- External data, present and missing ----

class LoaderWeightsExternal : public ::testing::Test {
 protected:
  // W and W2 [kN,kN] in big.bin (one after the other), target [3] in small.bin.
  std::string save_model() {
    ModelBuilder m = weights_model();
    m.graph().clear_initializer();
    m.add_float_initializer("b", {kN}, iota(kN));
    m.add_external_initializer("W", DType::kF32, {kN, kN}, "big.bin");
    m.add_external_initializer("W2", DType::kF32, {kN, kN}, "big.bin", kN * kN * 4);
    m.add_external_initializer("target", DType::kI64, {3}, "small.bin");
    return m.save(dir.path("m.onnx"));
  }
  void write_data() {
    std::vector<float> wb = iota(kN * kN);
    wb.insert(wb.end(), wb.begin(), wb.end());
    dir.write("big.bin", std::string_view(reinterpret_cast<const char*>(wb.data()), wb.size() * 4));
    const int64_t target[3] = {0, 2, kN / 2};
    dir.write("small.bin", std::string_view(reinterpret_cast<const char*>(target), 24));
  }
  TempDir dir;
};

TEST_F(LoaderWeightsExternal, PresentInBothModes) {
  write_data();
  const std::string path = save_model();
  const ir::Graph run = load_model(path, kRun).graph;
  EXPECT_EQ(value_named_or_throw(run, "W").constant->to_double(), as_double(iota(kN * kN)));
  const onnx_import::LoadResult analysed = load_model(path, kAnalyse);
  EXPECT_FALSE(value_named_or_throw(analysed.graph, "W").constant);
  EXPECT_EQ(value_named_or_throw(run, "W2").constant->to_double(), as_double(iota(kN * kN)));
  EXPECT_EQ(value_named_or_throw(analysed.graph, "target").constant->to_int64(),
            (std::vector<int64_t>{0, 2, kN / 2}));
  EXPECT_TRUE(analysed.warnings.empty());
}

TEST_F(LoaderWeightsExternal, MissingIsAnErrorWhenRunning) {
  const std::string path = save_model();
  expect_error([&] { load_model(path, kRun); },
               {path, "initializer 'W'", dir.path("big.bin"), "does not exist"});
  expect_error([&] { runtime::load_model(path); }, {path, dir.path("big.bin")});
}

TEST_F(LoaderWeightsExternal, MissingIsOneWarningPerFileWhenAnalysing) {
  const std::string path = save_model();
  const runtime::Model model = runtime::load_model(path, kAnalyse);
  ASSERT_EQ(model.warnings.size(), 2u) << "big.bin and small.bin, once each";
  EXPECT_NE(model.warnings[0].find(dir.path("big.bin")), std::string::npos) << model.warnings[0];
  EXPECT_NE(model.warnings[0].find(path), std::string::npos) << model.warnings[0];
  EXPECT_NE(model.warnings[1].find(dir.path("small.bin")), std::string::npos) << model.warnings[1];
  const ir::Value& w = value_named_or_throw(model.graph, "W");
  EXPECT_FALSE(w.constant);
  EXPECT_EQ(w.shape.str(), "[160,160]");
  // Shapes flow through the unread weights; the Reshape target is missing too, so its output's
  // shape is left to run time.
  EXPECT_EQ(value_named_or_throw(model.graph, "a").shape.str(), "[batch,160]");
  EXPECT_FALSE(value_named_or_throw(model.graph, "y").shape_known);
}

// ---- Malformed files fail the same way in both modes ----

TEST(LoaderWeightsBadFile, TruncatedAnywhereIsAClearError) {
  TempDir dir;
  const std::string bytes = weights_model().serialize();
  // Cuts inside the opset import (written last), the initializers' data and the nodes.
  for (size_t keep : {bytes.size() - 1, bytes.size() - 1000, bytes.size() / 2, size_t(40)}) {
    const std::string path = dir.write("cut.onnx", bytes.substr(0, keep));
    for (const LoadOptions& options : {kRun, kAnalyse})
      expect_error([&] { load_model(path, options); }, {path, "not a valid ONNX model"});
  }
}

TEST(LoaderWeightsBadFile, EveryPrefixFailsCleanlyOrLoads) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Add", {"x", "w"}, {"y"}, "add");
  m.add_output("y");
  m.add_initializer("w", Tensor::from<float>({2}, {1, 2}));
  const std::string bytes = m.serialize();
  for (size_t keep = 1; keep < bytes.size(); ++keep) {
    const std::string path = dir.write("cut.onnx", bytes.substr(0, keep));
    for (const LoadOptions& options : {kRun, kAnalyse}) {
      try {
        load_model(path, options);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kBadInput) << keep << ": " << e.what();
      }
    }
  }
}

TEST(LoaderWeightsBadFile, RawDataLengthBeyondTheFile) {
  TempDir dir;
  // A valid model, then a second graph field (merged into the first by protobuf) whose initializer
  // claims 2^40 bytes of raw_data, far past the end of the file.
  const std::string tensor = std::string("\x42\x01w\x4a\x80\x80\x80\x80\x80\x20", 10) + "xyz";
  const std::string graph = std::string("\x2a") + char(tensor.size()) + tensor;
  const std::string bytes = weights_model().serialize() + "\x3a" + char(graph.size()) + graph;
  const std::string path = dir.write("m.onnx", bytes);
  for (const LoadOptions& options : {kRun, kAnalyse})
    expect_error([&] { load_model(path, options); }, {path, "not a valid ONNX model"});
}

TEST(LoaderWeightsBadFile, RawDataOfTheWrongSizeInBothModes) {
  TempDir dir;
  ModelBuilder m = weights_model();
  m.graph().mutable_initializer(0)->mutable_raw_data()->resize(12);
  const std::string path = m.save(dir.path("m.onnx"));
  for (const LoadOptions& options : {kRun, kAnalyse})
    expect_error([&] { load_model(path, options); },
                 {path, "initializer 'W'", "raw data has 12 bytes but its shape needs 102400"});
}

}  // namespace
}  // namespace strata::test
