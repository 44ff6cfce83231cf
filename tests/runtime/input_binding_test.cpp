// Input arguments → tensors bound to graph inputs: parsing, files, inline values, random values.
#include "runtime/input_binding.h"

#include <gtest/gtest.h>

#include <tuple>

#include "core/error.h"
#include "io/npy.h"
#include "onnx/loader.h"
#include "testutil/cli_util.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using runtime::bind_inputs;
using runtime::BindOptions;
using runtime::BoundInput;
using runtime::InputArg;
using runtime::parse_input_arg;
using runtime::parse_shape;

// ---- parse_input_arg ----

void expect_arg(const std::string& text, const std::string& name, const std::string& source) {
  const InputArg arg = parse_input_arg(text);
  EXPECT_EQ(arg.name, name) << text;
  EXPECT_EQ(arg.source, source) << text;
}

TEST(ParseInputArg, NamedAndBare) {
  expect_arg("image=cat.png", "image", "cat.png");
  expect_arg("cat.png", "", "cat.png");
  expect_arg("ids=[1,2,3]", "ids", "[1,2,3]");
  expect_arg("[1,2,3]", "", "[1,2,3]");
  expect_arg("x=data/a=b.npy", "x", "data/a=b.npy");
  expect_arg("input:0=a.npy", "input:0", "a.npy");
}

TEST(ParseInputArg, PathsWithEqualsSignsAreBare) {
  expect_arg("data/run=3/x.npy", "", "data/run=3/x.npy");
  expect_arg("=x.npy", "", "=x.npy");
  expect_arg("[{\"a=\": 1}]", "", "[{\"a=\": 1}]");
}

// ---- parse_shape ----

TEST(ParseShape, Valid) {
  EXPECT_EQ(parse_shape("1x3x224x224", "--shape x"), (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parse_shape("2,5", "--shape x"), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(parse_shape("7", "--shape x"), (std::vector<int64_t>{7}));
  EXPECT_EQ(parse_shape("0x4", "--shape x"), (std::vector<int64_t>{0, 4}));
}

TEST(ParseShape, Invalid) {
  for (const char* text : {"", "x", "1x", "x1", "1xx2", "-1", "1x-2", "a", "1.5", "1x 2", " 1",
                           "1X2", "1234567890123"}) {
    SCOPED_TRACE(text);
    expect_error([&] { parse_shape(text, "--shape image"); }, {"--shape image", "not a shape"});
  }
}

TEST(ParseShape, OverflowNamesWhat) {
  expect_error([&] { parse_shape("999999999x999999999", "--shape image"); }, {"--shape image"});
}

// ---- bind_inputs ----

// Inputs a (float32 [2,2]), b (int64 [3]), c (float32 ["N", 2]) each passed through Identity.
class BindInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    ModelBuilder m;
    m.add_input("a", DType::kF32, {2, 2});
    m.add_input("b", DType::kI64, {3});
    m.add_input("c", DType::kF32, {"N", 2});
    for (const char* name : {"a", "b", "c"}) {
      m.add_node("Identity", {name}, {std::string(name) + "_out"}, std::string("id_") + name);
      m.add_output(std::string(name) + "_out");
    }
    graph = onnx_import::load_model(m.save(dir.path("model.onnx"))).graph;
    io::write_npy(dir.path("a.npy"), Tensor::from<float>({2, 2}, {1, 2, 3, 4}));
    io::write_npy(dir.path("b.npy"), Tensor::from<int64_t>({3}, {7, 8, 9}));
    io::write_npy(dir.path("c.npy"), Tensor::from<float>({1, 2}, {5, 6}));
    io::write_npy(dir.path("a64.npy"), Tensor::from<double>({2, 2}, {1, 2, 3, 4}));
  }

  BindOptions options(std::vector<std::string> args) const {
    BindOptions o;
    for (const std::string& a : args) o.inputs.push_back(parse_input_arg(a));
    return o;
  }

  TempDir dir;
  ir::Graph graph;
};

TEST_F(BindInputs, PositionalInOrder) {
  const auto bound =
      bind_inputs(graph, options({dir.path("a.npy"), dir.path("b.npy"), dir.path("c.npy")}));
  ASSERT_EQ(bound.size(), 3u);
  EXPECT_EQ(bound[0].tensor.to_double(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(bound[1].tensor.to_int64(), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(bound[2].tensor.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(bound[0].origin, dir.path("a.npy"));
}

TEST_F(BindInputs, NamedInAnyOrder) {
  const auto bound = bind_inputs(graph, options({"c=" + dir.path("c.npy"), "b=" + dir.path("b.npy"),
                                                 "a=" + dir.path("a.npy")}));
  EXPECT_EQ(bound[0].tensor.to_double(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(bound[1].tensor.to_int64(), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(bound[2].tensor.to_double(), (std::vector<double>{5, 6}));
}

TEST_F(BindInputs, BareInputsFillTheInputsNotNamed) {
  BindOptions o = options({"a=" + dir.path("a.npy"), dir.path("b.npy")});
  o.dims["N"] = 1;
  const auto bound = bind_inputs(graph, o);
  EXPECT_EQ(bound[1].tensor.to_int64(), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_NE(bound[2].origin.find("random"), std::string::npos);
}

TEST_F(BindInputs, InlineValues) {
  BindOptions o = options({"a=[[1, 2], [3, 4.5]]", "b=[1, 2, 3]", "c=[[0.5, 1]]"});
  const auto bound = bind_inputs(graph, o);
  EXPECT_EQ(bound[0].tensor.dtype(), DType::kF32);
  EXPECT_EQ(bound[0].tensor.to_double(), (std::vector<double>{1, 2, 3, 4.5}));
  EXPECT_EQ(bound[1].tensor.dtype(), DType::kI64);
  EXPECT_EQ(bound[1].tensor.to_int64(), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(bound[2].tensor.shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(bound[0].origin, "inline");
}

TEST(BindScalarInputs, ScalarsWithoutBracketsAreInlineValuesNotFileNames) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("x", DType::kF32, {});
  m.add_input("n", DType::kI64, {});
  m.add_input("flag", DType::kBool, {});
  m.add_node("Identity", {"x"}, {"y"});
  m.add_output("y");
  const ir::Graph graph = onnx_import::load_model(m.save(dir.path("scalars.onnx"))).graph;
  for (const auto& [x, n, flag, want_x, want_n, want_flag] :
       std::vector<std::tuple<std::string, std::string, std::string, double, int64_t, int64_t>>{
           {"-1.5", "0", "true", -1.5, 0, 1},
           {"+2e-3", "-7", "false", 2e-3, -7, 0},
           {"0.25", "+12", "1", 0.25, 12, 1}}) {
    BindOptions o;
    for (const std::string& a : {"x=" + x, "n=" + n, "flag=" + flag})
      o.inputs.push_back(parse_input_arg(a));
    const auto bound = bind_inputs(graph, o);
    ASSERT_EQ(bound.size(), 3u);
    EXPECT_EQ(bound[0].tensor.shape(), std::vector<int64_t>{});
    EXPECT_FLOAT_EQ(float(bound[0].tensor.to_double()[0]), float(want_x)) << x;
    EXPECT_EQ(bound[1].tensor.to_int64(), std::vector<int64_t>{want_n}) << n;
    EXPECT_EQ(bound[2].tensor.to_int64(), std::vector<int64_t>{want_flag}) << flag;
    EXPECT_EQ(bound[0].origin, "inline");
  }
  // An integer input given a fraction is refused naming the input; a word is a missing file.
  BindOptions fraction;
  fraction.inputs = {parse_input_arg("n=1.5")};
  expect_error([&] { bind_inputs(graph, fraction); }, {"'n'"});
  BindOptions word;
  word.inputs = {parse_input_arg("x=zero")};
  expect_error([&] { bind_inputs(graph, word); }, {"zero"});
}

TEST(BindSlashedInputs, InputNamesWithASlashCanBeNamed) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("gpu_0/data_0", DType::kF32, {2});
  m.add_input("b", DType::kF32, {2});
  m.add_node("Add", {"gpu_0/data_0", "b"}, {"y"});
  m.add_output("y");
  const ir::Graph graph = onnx_import::load_model(m.save(dir.path("slash.onnx"))).graph;
  io::write_npy(dir.path("x.npy"), Tensor::from<float>({2}, {1, 2}));
  BindOptions o;
  o.inputs = {parse_input_arg("b=[3, 4]"), parse_input_arg("gpu_0/data_0=" + dir.path("x.npy"))};
  const auto bound = bind_inputs(graph, o);
  EXPECT_EQ(bound[0].tensor.to_double(), (std::vector<double>{1, 2}));
  EXPECT_EQ(bound[0].origin, dir.path("x.npy"));
  EXPECT_EQ(bound[1].tensor.to_double(), (std::vector<double>{3, 4}));
  // The command line checks its files before binding: it must split such a name too.
  for (const char* command : {"run", "profile"}) {
    const CliResult r =
        run_strata(dir, {command, dir.path("slash.onnx"), "-i", "gpu_0/data_0=" + dir.path("x.npy"),
                         "-i", "b=[3, 4]", "--iter", "1"});
    EXPECT_EQ(r.code, 0) << command << ": " << r.err;
  }
}

TEST_F(BindInputs, InlineValueOfTheWrongKindNamesTheInput) {
  expect_error([&] { bind_inputs(graph, options({"b=[1.5, 2, 3]"})); }, {"'b'"});
}

TEST_F(BindInputs, UnknownNameListsTheInputs) {
  expect_error([&] { bind_inputs(graph, options({"image=" + dir.path("a.npy")})); },
               {"'image'", "a, b, c"});
}

TEST_F(BindInputs, GivenTwice) {
  expect_error(
      [&] {
        bind_inputs(graph, options({"a=" + dir.path("a.npy"), "a=" + dir.path("a.npy")}));
      },
      {"'a'", "twice"});
  expect_error(
      [&] {
        bind_inputs(graph, options({dir.path("a.npy"), "a=" + dir.path("a.npy")}));
      },
      {"'a'", "twice"});
}

TEST_F(BindInputs, TooMany) {
  const std::string a = dir.path("a.npy");
  expect_error([&] { bind_inputs(graph, options({a, a, a, a})); }, {"too many inputs", "3 inputs"});
}

TEST_F(BindInputs, FileWithTheWrongDtypeNamesInputAndFile) {
  expect_error([&] { bind_inputs(graph, options({"a=" + dir.path("a64.npy")})); },
               {"'a'", "a64.npy", "float64", "float32"});
}

TEST_F(BindInputs, MissingFileNamesIt) {
  expect_error([&] { bind_inputs(graph, options({"a=" + dir.path("nope.npy")})); }, {"nope.npy"});
}

TEST_F(BindInputs, UnknownFileType) {
  dir.write("a.txt", "1 2 3 4");
  expect_error([&] { bind_inputs(graph, options({"a=" + dir.path("a.txt")})); }, {"a.txt", ".txt"});
}

TEST_F(BindInputs, RandomInputsAreReproducibleWithASeed) {
  BindOptions o;
  o.dims["N"] = 4;
  o.seed = 7;
  const auto first = bind_inputs(graph, o);
  const auto second = bind_inputs(graph, o);
  o.seed = 8;
  const auto other = bind_inputs(graph, o);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first[i].tensor.to_double(), second[i].tensor.to_double()) << i;
    EXPECT_NE(first[i].tensor.to_double(), other[i].tensor.to_double()) << i;
  }
  EXPECT_EQ(first[0].origin, "random (seed 7)");
  EXPECT_EQ(first[0].tensor.dtype(), DType::kF32);
  EXPECT_EQ(first[1].tensor.dtype(), DType::kI64);
  EXPECT_EQ(first[2].tensor.shape(), (std::vector<int64_t>{4, 2}));
  for (double v : first[0].tensor.to_double()) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 1);
  }
  for (int64_t v : first[1].tensor.to_int64()) {
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 10);
  }
}

TEST_F(BindInputs, DynamicDimWithoutShapeNamesTheDim) {
  expect_error([&] { bind_inputs(graph, BindOptions{}); }, {"'c'", "'N'", "--shape"});
}

TEST_F(BindInputs, ShapeOptionFixesADynamicInput) {
  BindOptions o;
  o.shapes["c"] = {5, 2};
  const auto bound = bind_inputs(graph, o);
  EXPECT_EQ(bound[2].tensor.shape(), (std::vector<int64_t>{5, 2}));
}

TEST_F(BindInputs, ShapeForAnUnknownInput) {
  BindOptions o;
  o.dims["N"] = 1;
  o.shapes["zzz"] = {1};
  expect_error([&] { bind_inputs(graph, o); }, {"'zzz'"});
}

TEST(BindInputsUnranked, InputWithoutShapeNeedsOne) {
  TempDir dir;
  ModelBuilder m;
  m.add_input_unranked("x", DType::kF32);
  m.add_node("Identity", {"x"}, {"y"}, "id");
  m.add_output("y");
  const ir::Graph g = onnx_import::load_model(m.save(dir.path("m.onnx"))).graph;
  expect_error([&] { bind_inputs(g, BindOptions{}); }, {"'x'", "--shape"});
  BindOptions o;
  o.shapes["x"] = {3};
  EXPECT_EQ(bind_inputs(g, o)[0].tensor.shape(), (std::vector<int64_t>{3}));
}

}  // namespace
}  // namespace strata::test
