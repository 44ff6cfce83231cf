// The ONNX loader: every bad file is refused with one message naming the file and the problem;
// good files keep what the model says (constants, metadata, symbolic dims).
#include "onnx/loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;
using onnx_import::load_model;

std::string example_model() {
  return std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx";
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Expects loading `path` to fail with exit code 2 and a one-line message naming the file that
// contains every one of `details`. `full` loads like the CLI does (runtime::load_model: parse,
// check op support, infer shapes); otherwise only the ONNX parser and its checks run.
void expect_load_error(const std::string& path, const std::vector<std::string>& details,
                       bool full = false) {
  try {
    if (full)
      runtime::load_model(path);
    else
      load_model(path);
    ADD_FAILURE() << path << ": loaded, but an error was expected";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kBadInput) << message;
    EXPECT_NE(message.find(path), std::string::npos) << "the file is not named: " << message;
    for (const std::string& d : details)
      EXPECT_NE(message.find(d), std::string::npos) << "missing '" << d << "' in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  }
}

// x (float32 [2,3]) → Relu → y: the smallest valid model, extended by the tests.
ModelBuilder relu_model(int64_t opset = 17) {
  ModelBuilder m(opset);
  m.add_input("x", DType::kF32, {2, 3});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y", DType::kF32, {2, 3});
  return m;
}

// x + w, where the test supplies the initializer w (float32 [2,2]).
ModelBuilder add_weight_model() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 2});
  m.add_node("Add", {"x", "w"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {2, 2});
  return m;
}

const ir::Value& value_named(const ir::Graph& g, const std::string& name) {
  const ir::ValueId id = g.find_value(name);
  EXPECT_NE(id, ir::kNoValue) << name;
  return g.values.at(size_t(id));
}

// ---- Files that are not models ----

TEST(LoaderFile, MissingFile) {
  TempDir dir;
  expect_load_error(dir.path("nope.onnx"), {"no such file"});
}

TEST(LoaderFile, EmptyFile) {
  TempDir dir;
  expect_load_error(dir.write("empty.onnx", ""), {"empty"});
}

TEST(LoaderFile, Folder) {
  TempDir dir;
  expect_load_error(dir.mkdir("model.onnx"), {"folder"});
}

TEST(LoaderFile, TruncatedModel) {
  TempDir dir;
  const std::string bytes = read_all(example_model());
  ASSERT_GT(bytes.size(), 1000u);
  expect_load_error(dir.write("half.onnx", bytes.substr(0, bytes.size() / 2)),
                    {"not a valid ONNX model"});
}

TEST(LoaderFile, RandomBytes) {
  TempDir dir;
  std::mt19937 rng(1234);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = char(rng() & 0xff);
  expect_load_error(dir.write("random.onnx", bytes), {"not a valid ONNX model"});
}

TEST(LoaderFile, TextFile) {
  TempDir dir;
  expect_load_error(dir.write("readme.onnx", "This is a text file, not a model.\nSecond line.\n"),
                    {"not a valid ONNX model"});
}

TEST(LoaderFile, ExampleModelLoads) {
  const onnx_import::LoadResult r = load_model(example_model());
  EXPECT_EQ(r.graph.nodes.size(), 28u);
  ASSERT_EQ(r.graph.inputs.size(), 1u);
  EXPECT_EQ(r.graph.values[size_t(r.graph.inputs[0])].name, "image");
  EXPECT_EQ(r.graph.opset, 13);
  EXPECT_TRUE(r.warnings.empty());
}

// ---- Invalid graphs ----

TEST(LoaderGraph, IrVersionTwo) {
  TempDir dir;
  ModelBuilder m = relu_model();
  m.proto().set_ir_version(2);
  expect_load_error(m.save(dir.path("m.onnx")), {"IR version 2"});
}

TEST(LoaderGraph, NoOutputs) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  expect_load_error(m.save(dir.path("m.onnx")), {"no outputs"});
}

TEST(LoaderGraph, UnsupportedOpsAreListedTogether) {
  TempDir dir;
  ModelBuilder m(15);
  m.add_input("x", DType::kF32, {1, 2, 3});
  m.add_node("NotAnOnnxOp", {"x"}, {"a"}, "first");
  m.add_node("Relu", {"a"}, {"b"}, "relu");
  m.add_node("NoSuchOp", {"b"}, {"y"}, "mystery");
  m.add_output("y");
  const std::string path = m.save(dir.path("m.onnx"));
  expect_load_error(path,
                    {"2 unsupported ops", "NotAnOnnxOp (opset 15) at 'first'",
                     "NoSuchOp (opset 15) at 'mystery'"},
                    /*full=*/true);
  EXPECT_NO_THROW(load_model(path)) << "the parser alone does not check op support";
}

TEST(LoaderGraph, OpFromAnotherDomainIsUnsupported) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("FusedThing", {"x"}, {"y"}, "fused").set_domain("com.example");
  m.add_output("y");
  expect_load_error(m.save(dir.path("m.onnx")),
                    {"1 unsupported op:", "com.example:FusedThing", "'fused'"},
                    /*full=*/true);
}

TEST(LoaderGraph, ShapeErrorNamesFileAndNode) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("a", DType::kF32, {2});
  m.add_input("b", DType::kF32, {3});
  m.add_node("Add", {"a", "b"}, {"y"}, "adder");
  m.add_output("y");
  expect_load_error(m.save(dir.path("m.onnx")), {"Add node 'adder'"}, /*full=*/true);
}

TEST(LoaderGraph, FullLoadInfersShapesKeepingSymbols) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"batch", 3});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  const runtime::Model model = runtime::load_model(m.save(dir.path("m.onnx")));
  const ir::Value& y = value_named(model.graph, "y");
  ASSERT_TRUE(y.shape_known);
  EXPECT_EQ(y.dtype, DType::kF32);
  EXPECT_EQ(y.shape.str(), value_named(model.graph, "x").shape.str());
  EXPECT_EQ(y.shape[0].symbol(), "batch");
}

TEST(LoaderGraph, NodeReadsUndefinedValue) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Add", {"x", "ghost"}, {"y"}, "adder");
  m.add_output("y");
  expect_load_error(m.save(dir.path("m.onnx")), {"Add node 'adder'", "'ghost'"});
}

TEST(LoaderGraph, ValueProducedTwice) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Relu", {"x"}, {"y"}, "first");
  m.add_node("Neg", {"x"}, {"y"}, "second");
  m.add_output("y");
  expect_load_error(m.save(dir.path("m.onnx")), {"'y'", "more than once", "'second'"});
}

TEST(LoaderGraph, NodeOverwritesGraphInput) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Relu", {"x"}, {"x"}, "self");
  m.add_output("x");
  expect_load_error(m.save(dir.path("m.onnx")), {"'x'", "more than once"});
}

TEST(LoaderGraph, Cycle) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Add", {"x", "c"}, {"a"}, "a_node");
  m.add_node("Relu", {"a"}, {"b"}, "b_node");
  m.add_node("Neg", {"b"}, {"c"}, "c_node");
  m.add_output("c");
  expect_load_error(m.save(dir.path("m.onnx")), {"cycle"});
}

TEST(LoaderGraph, OutputNotProduced) {
  TempDir dir;
  ModelBuilder m = relu_model();
  m.add_output("nowhere");
  expect_load_error(m.save(dir.path("m.onnx")), {"'nowhere'", "not produced"});
}

TEST(LoaderGraph, NodesAreSortedTopologically) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_node("Neg", {"a"}, {"y"}, "second");
  m.add_node("Relu", {"x"}, {"a"}, "first");
  m.add_output("y");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].name, "first");
  EXPECT_EQ(g.nodes[1].name, "second");
}

// ---- Initializers ----

TEST(LoaderInitializer, RawDataSizeMismatch) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_initializer("w", Tensor::from<float>({2, 2}, {1, 2, 3, 4}))
      .set_raw_data(std::string(12, '\0'));
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "12 bytes", "16"});
}

TEST(LoaderInitializer, TypedFieldCountMismatch) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_float_initializer("w", {2, 2}, {1, 2, 3});
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "3 values", "needs 4"});
}

TEST(LoaderInitializer, TypedFieldOfTheWrongKind) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  onnx::TensorProto& w = m.add_float_initializer("w", {2, 2}, {});
  for (int i = 0; i < 4; ++i) w.add_int64_data(i);  // right count, wrong field for float32
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "float_data"});
}

TEST(LoaderInitializer, TypedFieldsLoad) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_float_initializer("w", {2, 2}, {1.5f, -2, 3, 4});
  m.add_int64_initializer("unused", {3}, {7, -8, 9});
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  const Tensor& w = *value_named(g, "w").constant;
  EXPECT_EQ(w.dtype(), DType::kF32);
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(w.to_double(), (std::vector<double>{1.5, -2, 3, 4}));
  EXPECT_EQ(value_named(g, "unused").constant->to_int64(), (std::vector<int64_t>{7, -8, 9}));
}

TEST(LoaderInitializer, NegativeDims) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  onnx::TensorProto& w = m.add_float_initializer("w", {2, -2}, {});
  (void)w;
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "negative"});
}

TEST(LoaderInitializer, DimsWhoseProductOverflows) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  const int64_t huge = int64_t(1) << 40;
  m.add_float_initializer("w", {huge, huge, huge}, {1});
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "too large"});
}

TEST(LoaderInitializer, ElementCountFineButByteCountTooLarge) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_float_initializer("w", {int64_t(1) << 39}, {});  // 2^39 elements fit, 2^41 bytes do not
  expect_load_error(m.save(dir.path("m.onnx")), {"initializer 'w'", "too large"});
}

TEST(LoaderInitializer, StringInitializerLoadsButNumericOpsRefuseIt) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  onnx::TensorProto& w = *m.graph().add_initializer();
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::STRING);
  w.add_dims(1);
  w.add_string_data("hello");
  // Strings load; a numeric op given one is refused when a session is prepared.
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  const ir::Value& v = value_named(g, "w");
  EXPECT_EQ(v.dtype, DType::kString);
  ASSERT_TRUE(v.constant);
  EXPECT_EQ(v.constant->data<std::string>()[0], "hello");
  try {
    runtime::Session session(g, {{DType::kF32, {2, 2}, nullptr, ValueKind::kTensor}}, {});
    ADD_FAILURE() << "a session was prepared for Add of a string";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Add node 'add' does not support dtype string"),
              std::string::npos)
        << e.what();
  }
}

TEST(LoaderInitializer, DefinedTwice) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_initializer("w", Tensor::from<float>({2, 2}, {1, 2, 3, 4}));
  m.add_initializer("w", Tensor::from<float>({2, 2}, {1, 2, 3, 4}));
  expect_load_error(m.save(dir.path("m.onnx")), {"'w'", "twice"});
}

TEST(LoaderInitializer, ListedAsGraphInputIsAConstantNotAnInput) {
  TempDir dir;
  ModelBuilder m = add_weight_model();
  m.add_initializer("w", Tensor::from<float>({2, 2}, {1, 2, 3, 4}));
  m.add_input("w", DType::kF32, {2, 2});
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.values[size_t(g.inputs[0])].name, "x");
  const ir::Value& w = value_named(g, "w");
  ASSERT_TRUE(w.constant);
  EXPECT_FALSE(w.is_graph_input);
  EXPECT_EQ(w.constant->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

// ---- Graph input types ----

TEST(LoaderInput, SequenceTypedInputIsASequenceValue) {
  TempDir dir;
  ModelBuilder m = relu_model();
  onnx::ValueInfoProto& seq = *m.graph().add_input();
  seq.set_name("seq");
  seq.mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  const ir::Value& v = value_named(g, "seq");
  EXPECT_EQ(v.kind, ValueKind::kSequence);
  EXPECT_EQ(v.dtype, DType::kF32);
}

TEST(LoaderInput, MapTypedInput) {
  TempDir dir;
  ModelBuilder m = relu_model();
  onnx::ValueInfoProto& map = *m.graph().add_input();
  map.set_name("map");
  map.mutable_type()->mutable_map_type()->set_key_type(onnx::TensorProto::INT64);
  expect_load_error(m.save(dir.path("m.onnx")), {"'map'", "not a tensor, sequence or optional"});
}

TEST(LoaderInput, StringTypedInputLoads) {
  TempDir dir;
  ModelBuilder m = relu_model();
  m.add_input("text", DType::kString, {1});
  EXPECT_EQ(value_named(load_model(m.save(dir.path("m.onnx"))).graph, "text").dtype,
            DType::kString);
}

TEST(LoaderInput, NegativeInputDim) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, -3});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  expect_load_error(m.save(dir.path("m.onnx")), {"'x'", "negative"});
}

TEST(LoaderInput, NamedSymbolicDimsStaySymbolic) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"batch", 3, DimSpec::unknown()});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  const ir::Value& x = value_named(g, "x");
  EXPECT_TRUE(x.is_graph_input);
  ASSERT_TRUE(x.shape_known);
  ASSERT_EQ(x.shape.rank(), 3);
  EXPECT_FALSE(x.shape[0].is_static());
  EXPECT_EQ(x.shape[0].symbol(), "batch");
  EXPECT_TRUE(x.shape[1].is_static());
  EXPECT_EQ(x.shape[1].value(), 3);
  EXPECT_FALSE(x.shape[2].is_static());
  EXPECT_NE(x.shape[2].symbol(), "batch");
}

TEST(LoaderInput, UnrankedInputHasNoShape) {
  TempDir dir;
  ModelBuilder m;
  m.add_input_unranked("x", DType::kI64);
  m.add_node("Neg", {"x"}, {"y"}, "neg");
  m.add_output("y");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  EXPECT_EQ(value_named(g, "x").dtype, DType::kI64);
  EXPECT_FALSE(value_named(g, "x").shape_known);
}

// ---- Other good cases ----

TEST(LoaderGood, ConstantNode) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {3});
  m.add_constant("c", Tensor::from<float>({3}, {1, 2, 3}));
  m.add_node("Add", {"x", "c"}, {"y"}, "add");
  m.add_output("y");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Constant");
  const ir::Attribute& value = g.nodes[0].attributes.at("value");
  EXPECT_EQ(value.kind, ir::Attribute::Kind::kTensor);
  EXPECT_EQ(value.t.to_double(), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(g.inputs.size(), 1u);
}

TEST(LoaderGood, NodeAttributes) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  onnx::NodeProto& n = m.add_node("Transpose", {"x"}, {"y"}, "t");
  set_attr(n, "perm", std::vector<int64_t>{1, 0});
  set_attr(n, "f", 0.5f);
  set_attr(n, "s", std::string("text"));
  set_attr(n, "fs", std::vector<float>{1.5f, 2.5f});
  m.add_output("y");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  const auto& attrs = g.nodes.at(0).attributes;
  EXPECT_EQ(attrs.at("perm").ints, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(attrs.at("f").f, 0.5f);
  EXPECT_EQ(attrs.at("s").s, "text");
  EXPECT_EQ(attrs.at("fs").floats, (std::vector<float>{1.5f, 2.5f}));
}

TEST(LoaderGood, MetadataProps) {
  TempDir dir;
  ModelBuilder m = relu_model();
  m.add_metadata("author", "tests");
  m.add_metadata("license", "MIT");
  const ir::Graph g = load_model(m.save(dir.path("m.onnx"))).graph;
  EXPECT_EQ(g.metadata.at("author"), "tests");
  EXPECT_EQ(g.metadata.at("license"), "MIT");
  EXPECT_EQ(g.producer_name, "strata-tests");
  EXPECT_EQ(g.ir_version, 8);
}

TEST(LoaderGood, NewerOpsetLoadsWithAWarning) {
  TempDir dir;
  const std::string path = relu_model(23).save(dir.path("m.onnx"));
  const onnx_import::LoadResult r = load_model(path);
  EXPECT_EQ(r.graph.opset, 23);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("opset 23"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find(path), std::string::npos) << r.warnings[0];
}

TEST(LoaderGood, SupportedOpsetHasNoWarning) {
  TempDir dir;
  const onnx_import::LoadResult r = load_model(relu_model(21).save(dir.path("m.onnx")));
  EXPECT_EQ(r.graph.opset, 21);
  EXPECT_TRUE(r.warnings.empty());
}

// ---- External data ----

// A model reading w (float32 [2,2]) from external data; the test writes the data file.
class LoaderExternal : public ::testing::Test {
 protected:
  std::string model_with(const std::string& location, int64_t offset = -1, int64_t length = -1) {
    ModelBuilder m = add_weight_model();
    m.add_external_initializer("w", DType::kF32, {2, 2}, location, offset, length);
    return m.save(dir.path("model/m.onnx"));
  }
  std::string floats_bytes(const std::vector<float>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  void SetUp() override { dir.mkdir("model"); }
  TempDir dir;
};

TEST_F(LoaderExternal, FileBesideTheModel) {
  dir.write("model/weights.bin", floats_bytes({9, 9, 1, 2, 3, 4}));
  const ir::Graph g = load_model(model_with("weights.bin", 8, 16)).graph;
  EXPECT_EQ(value_named(g, "w").constant->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(LoaderExternal, InASubfolderWithoutOffsetOrLength) {
  dir.write("model/data/w.bin", floats_bytes({5, 6, 7, 8}));
  const ir::Graph g = load_model(model_with("data/w.bin")).graph;
  EXPECT_EQ(value_named(g, "w").constant->to_double(), (std::vector<double>{5, 6, 7, 8}));
}

TEST_F(LoaderExternal, AbsolutePath) {
  const std::string abs = dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  const std::string model = model_with(abs);
  expect_load_error(model, {"initializer 'w'", "absolute"});
}

TEST_F(LoaderExternal, PathWithDotDot) {
  dir.write("outside.bin", floats_bytes({1, 2, 3, 4}));
  expect_load_error(model_with("../outside.bin"), {"initializer 'w'", "leaves the model's folder"});
}

TEST_F(LoaderExternal, DotDotInTheMiddle) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  expect_load_error(model_with("sub/../weights.bin"), {"initializer 'w'", "leaves"});
}

TEST_F(LoaderExternal, SymlinkPointingOutside) {
  const std::string outside = dir.write("secret.bin", floats_bytes({1, 2, 3, 4}));
  fs::create_symlink(outside, dir.path("model/weights.bin"));
  expect_load_error(model_with("weights.bin"), {"initializer 'w'", "link"});
}

TEST_F(LoaderExternal, SymlinkedFolderPointingOutside) {
  dir.write("elsewhere/weights.bin", floats_bytes({1, 2, 3, 4}));
  fs::create_directory_symlink(dir.path("elsewhere"), dir.path("model/data"));
  expect_load_error(model_with("data/weights.bin"), {"initializer 'w'", "link"});
}

TEST_F(LoaderExternal, SymlinkInsideTheFolderIsFine) {
  const std::string real = dir.write("model/real.bin", floats_bytes({1, 2, 3, 4}));
  fs::create_symlink("real.bin", dir.path("model/alias.bin"));
  const ir::Graph g = load_model(model_with("alias.bin")).graph;
  EXPECT_EQ(value_named(g, "w").constant->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(LoaderExternal, OffsetPlusLengthBeyondTheFile) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  expect_load_error(model_with("weights.bin", 8, 16),
                    {"initializer 'w'", "weights.bin", "16 bytes"});
}

TEST_F(LoaderExternal, HugeShapeWithAShortFileFailsBeforeAllocating) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  ModelBuilder m = add_weight_model();
  m.add_external_initializer("w", DType::kF32, {int64_t(1) << 33}, "weights.bin");  // 32 GiB
  expect_load_error(m.save(dir.path("model/m.onnx")), {"initializer 'w'", "only 16 bytes"});
}

TEST_F(LoaderExternal, FileTooShortWithoutOffset) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3}));
  expect_load_error(model_with("weights.bin"), {"initializer 'w'", "only 12 bytes"});
}

TEST_F(LoaderExternal, OffsetBeyondTheEnd) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  expect_load_error(model_with("weights.bin", 1000), {"initializer 'w'", "weights.bin"});
}

TEST_F(LoaderExternal, NegativeOffset) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  ModelBuilder m = add_weight_model();
  onnx::TensorProto& w = m.add_external_initializer("w", DType::kF32, {2, 2}, "weights.bin");
  auto* e = w.add_external_data();
  e->set_key("offset");
  e->set_value("-8");
  expect_load_error(m.save(dir.path("model/m.onnx")), {"initializer 'w'", "negative"});
}

TEST_F(LoaderExternal, MissingFile) {
  expect_load_error(model_with("absent.bin"), {"initializer 'w'", "absent.bin", "does not exist"});
}

TEST_F(LoaderExternal, LengthNotMatchingTheShape) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4, 5}));
  expect_load_error(model_with("weights.bin", 0, 20), {"initializer 'w'", "length 20", "16 bytes"});
}

TEST_F(LoaderExternal, LocationIsAFolder) {
  dir.mkdir("model/sub");
  expect_load_error(model_with("sub"), {"initializer 'w'", "not a regular file"});
}

TEST_F(LoaderExternal, NonNumericOffset) {
  dir.write("model/weights.bin", floats_bytes({1, 2, 3, 4}));
  ModelBuilder m = add_weight_model();
  onnx::TensorProto& w = m.add_external_initializer("w", DType::kF32, {2, 2}, "weights.bin");
  auto* e = w.add_external_data();
  e->set_key("offset");
  e->set_value("twelve");
  expect_load_error(m.save(dir.path("model/m.onnx")), {"initializer 'w'", "twelve"});
}

}  // namespace
}  // namespace strata::test

namespace strata::test {
namespace {

// x[batch,3] --Reshape(shape from a graph input)--> y, with y declared in value_info.
ModelBuilder reshape_with_declared_output() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"batch", 3});
  m.add_input("target", DType::kI64, {2});
  m.add_node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.add_node("Relu", {"y"}, {"z"}, "relu");
  m.add_output("z");
  onnx::ValueInfoProto* info = m.graph().add_value_info();
  info->set_name("y");
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_param("batch");
  tensor->mutable_shape()->add_dim()->set_dim_value(3);
  return m;
}

TEST(LoaderGood, ValueInfoDeclaresIntermediateTypes) {
  TempDir dir;
  const ir::Graph g =
      onnx_import::load_model(reshape_with_declared_output().save(dir.path("m.onnx"))).graph;
  const ir::Value& y = g.values[size_t(g.find_value("y"))];
  ASSERT_TRUE(y.shape_known);
  EXPECT_EQ(y.dtype, DType::kF32);
  EXPECT_EQ(y.shape.str(), "[batch,3]");
}

TEST(LoaderGood, ShapeInferenceGivesEveryValueATypeKeepingSymbolicDims) {
  TempDir dir;
  const runtime::Model model =
      runtime::load_model(reshape_with_declared_output().save(dir.path("m.onnx")));
  const ir::Graph& g = model.graph;
  // Reshape's target is data: its rule cannot tell, so the declared [batch,3] stays and flows on.
  const ir::Value& z = g.values[size_t(g.find_value("z"))];
  ASSERT_TRUE(z.shape_known);
  EXPECT_EQ(z.dtype, DType::kF32);
  EXPECT_EQ(z.shape.str(), "[batch,3]");
  EXPECT_EQ(model.shapes.declared, 1u);
  EXPECT_EQ(model.shapes.inferred, 1u);
  EXPECT_EQ(model.shapes.unknown, 0u);
}

}  // namespace
}  // namespace strata::test
