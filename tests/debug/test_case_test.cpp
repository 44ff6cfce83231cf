// Packed test cases: written in ONNX's layout, read back by the test-data reader.
#include "debug/test_case.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "onnx/tensor_proto.h"
#include "runtime/model.h"
#include "runtime/test_data.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

TEST(TestCase, WritesTheOnnxLayoutThatReadsBack) {
  TempDir dir;
  ModelBuilder m;
  m.add_input("a", DType::kF32, {2});
  m.add_input("b", DType::kI64, {2});
  m.add_node("Cast", {"b"}, {"bf"}, "cast");
  set_attr(*m.graph().mutable_node(0), "to", int64_t(1));
  m.add_node("Add", {"a", "bf"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {2});
  const std::string model = m.save(dir.path("m.onnx"));
  const ir::Graph g = runtime::load_model(model).graph;
  const Tensor a = Tensor::from<float>({2}, {0.5f, 1.5f});
  const Tensor b = Tensor::from<int64_t>({2}, {3, -4});
  const Tensor y = Tensor::from<float>({2}, {3.5f, -2.5f});
  debug::write_test_case(dir.path("case"), model, g, {a, b}, {&y});

  const auto found = debug::find_test_case(dir.path("case"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->model, dir.path("case/model.onnx"));
  EXPECT_TRUE(std::filesystem::exists(found->model));
  const runtime::TestData data = runtime::read_test_data(found->data_dir, g);
  ASSERT_EQ(data.inputs.size(), 2u);
  EXPECT_EQ(data.inputs[0].to_double(), a.to_double());
  EXPECT_EQ(data.inputs[1].dtype(), DType::kI64);
  EXPECT_EQ(data.inputs[1].to_double(), b.to_double());
  EXPECT_EQ(data.expected[0].to_double(), y.to_double());

  // Not overwritten.
  expect_error(
      [&] {
        debug::write_test_case(dir.path("case"), model, g, {a, b}, {&y});
      },
      {"case", "already holds a test case"});
}

// Sequences and optionals are written as ONNX's SequenceProto and OptionalProto and read back.
TEST(TestCase, ListValuesWriteAsTheirProtosAndReadBack) {
  TempDir dir;
  const Tensor a = Tensor::from<float>({2}, {1, 2});
  const Tensor b = Tensor::from<float>({1}, {3});
  const Tensor seq = Tensor::sequence(DType::kF32, {a, b});
  const Tensor nested = Tensor::sequence(DType::kF32, {seq, Tensor::sequence(DType::kF32, {})});
  const Tensor some = Tensor::optional(DType::kF32, {a});
  const Tensor none = Tensor::optional(DType::kF32, {});
  for (const Tensor* value : {&seq, &nested, &some, &none}) {
    const std::string path = dir.write("v.pb", onnx_import::serialize_value_pb(*value, "v"));
    const Tensor back = onnx_import::read_value_pb(path, value->kind(), DType::kF32);
    ASSERT_EQ(back.kind(), value->kind());
    ASSERT_EQ(back.items().size(), value->items().size());
  }
  const Tensor seq_back =
      onnx_import::read_value_pb(dir.path("v.pb"), ValueKind::kOptional, DType::kF32);
  EXPECT_TRUE(seq_back.items().empty());  // the last written: none
  dir.write("s.pb", onnx_import::serialize_value_pb(seq, "s"));
  const Tensor s = onnx_import::read_value_pb(dir.path("s.pb"), ValueKind::kSequence, DType::kF32);
  EXPECT_EQ(s.items()[0].to_double(), a.to_double());
  EXPECT_EQ(s.items()[1].to_double(), b.to_double());
  const Tensor n =
      onnx_import::read_value_pb(dir.write("n.pb", onnx_import::serialize_value_pb(nested, "n")),
                                 ValueKind::kSequence, DType::kF32);
  EXPECT_EQ(n.items()[0].items()[1].to_double(), b.to_double());
  EXPECT_TRUE(n.items()[1].items().empty());
}

TEST(TestCase, AModelFileIsNoTestCase) {
  TempDir dir;
  EXPECT_FALSE(debug::find_test_case(dir.write("m.onnx", "x")));
  dir.mkdir("empty");
  expect_error([&] { debug::find_test_case(dir.path("empty")); }, {"empty", "model.onnx"});
  dir.write("nodata/model.onnx", "x");
  expect_error([&] { debug::find_test_case(dir.path("nodata")); }, {"nodata", "test_data_set_0"});
}

TEST(TestCase, TensorProtoFilesKeepTheirName) {
  TempDir dir;
  const Tensor t = Tensor::from<float>({1, 2}, {1, 2});
  dir.write("t.pb", onnx_import::serialize_tensor_pb(t, "probabilities"));
  const Tensor r = onnx_import::read_tensor_pb(dir.path("t.pb"));
  EXPECT_EQ(r.shape(), t.shape());
  EXPECT_EQ(r.to_double(), t.to_double());
  onnx::TensorProto proto;
  ASSERT_TRUE(proto.ParseFromString(onnx_import::serialize_tensor_pb(t, "probabilities")));
  EXPECT_EQ(proto.name(), "probabilities");
  // A case folder that cannot be written fails naming it.
  dir.write("file", "x");
  expect_error(
      [&] { debug::write_test_case(dir.path("file/case"), "m.onnx", ir::Graph{}, {}, {}); },
      {"file/case", "cannot create"});
}

}  // namespace
}  // namespace strata::test
