// Parsing a model without its weights gives exactly what protobuf's full parse gives, minus the
// initializers' raw_data, which is found in place in the parsed bytes.
#include "onnx/model_skeleton.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using onnx_import::ModelSkeleton;
using onnx_import::parse_model_skeleton;

// Checks the skeleton of `bytes` against protobuf's parse of the same bytes.
void expect_same_as_protobuf(const std::string& bytes) {
  onnx::ModelProto full;
  ASSERT_TRUE(full.ParseFromString(bytes));
  ModelSkeleton skeleton;
  ASSERT_TRUE(parse_model_skeleton(bytes, skeleton));
  ASSERT_EQ(int(skeleton.initializers.size()), full.graph().initializer_size());
  for (int i = 0; i < full.graph().initializer_size(); ++i) {
    onnx::TensorProto expected = full.graph().initializer(i);
    const auto& got = skeleton.initializers[size_t(i)];
    EXPECT_EQ(got.raw_data.has_value(), expected.has_raw_data()) << expected.name();
    if (got.raw_data) {
      EXPECT_EQ(*got.raw_data, expected.raw_data()) << expected.name();
      EXPECT_GE(got.raw_data->data(), bytes.data()) << "a view into the bytes, not a copy";
      EXPECT_LE(got.raw_data->data() + got.raw_data->size(), bytes.data() + bytes.size());
    }
    expected.clear_raw_data();
    EXPECT_EQ(got.proto.SerializeAsString(), expected.SerializeAsString()) << expected.name();
  }
  full.mutable_graph()->clear_initializer();
  EXPECT_EQ(skeleton.model.SerializeAsString(), full.SerializeAsString());
}

ModelBuilder model_with_every_kind_of_initializer() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 2});
  m.add_node("Add", {"x", "raw"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {2, 2});
  m.add_initializer("raw", Tensor::from<float>({2, 2}, {1, 2, 3, 4}));
  m.add_float_initializer("typed", {3}, {5, 6, 7});
  m.add_external_initializer("external", DType::kF32, {2}, "w.bin", 0, 8);
  m.add_initializer("empty", Tensor::zeros(DType::kF32, {0}));
  m.add_metadata("author", "tests");
  return m;
}

TEST(ModelSkeleton, SameAsProtobufForEveryKindOfInitializer) {
  expect_same_as_protobuf(model_with_every_kind_of_initializer().serialize());
}

TEST(ModelSkeleton, SameAsProtobufForTheExampleModel) {
  std::ifstream in(std::string(STRATA_SOURCE_DIR) + "/examples/tiny_resnet.onnx", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  expect_same_as_protobuf(bytes);
}

TEST(ModelSkeleton, GraphGivenTwiceIsMergedLikeProtobufDoes) {
  ModelBuilder second;
  second.proto().clear_opset_import();
  second.add_initializer("late", Tensor::from<float>({1}, {9}));
  second.add_node("Relu", {"y"}, {"z"}, "relu");
  expect_same_as_protobuf(model_with_every_kind_of_initializer().serialize() + second.serialize());
}

// The bytes of a ModelProto whose graph holds one initializer with the given serialized bytes
// (all shorter than 128 bytes, so each length is one byte).
std::string model_with_initializer_bytes(const std::string& tensor) {
  const std::string graph = std::string("\x2a") + char(tensor.size()) + tensor;
  return std::string("\x3a") + char(graph.size()) + graph;
}

TEST(ModelSkeleton, LastRawDataWins) {
  onnx::TensorProto first, second;
  first.set_raw_data("aaaa");
  second.set_raw_data("bbbb");
  second.set_name("w");
  const std::string bytes =
      model_with_initializer_bytes(first.SerializeAsString() + second.SerializeAsString());
  expect_same_as_protobuf(bytes);
  ModelSkeleton skeleton;
  ASSERT_TRUE(parse_model_skeleton(bytes, skeleton));
  ASSERT_EQ(skeleton.initializers.size(), 1u);
  EXPECT_EQ(skeleton.initializers[0].raw_data, "bbbb");
}

TEST(ModelSkeleton, RawDataLongerThanTheBytesIsRefused) {
  // raw_data: a length of 2^40, then 3 bytes; the outer lengths are consistent.
  const std::string model =
      model_with_initializer_bytes(std::string("\x4a\x80\x80\x80\x80\x80\x20xyz", 10));
  ModelSkeleton skeleton;
  EXPECT_FALSE(parse_model_skeleton(model, skeleton));
  onnx::ModelProto full;
  EXPECT_FALSE(full.ParseFromString(model)) << "protobuf refuses it as well";
}

TEST(ModelSkeleton, MalformedFieldsOutsideTheInitializersAreRefused) {
  ModelBuilder m = model_with_every_kind_of_initializer();
  m.graph().mutable_node(0)->set_name("n");
  const std::string bytes = m.serialize();
  // Cut short inside metadata_props, the last field.
  ModelSkeleton skeleton;
  EXPECT_FALSE(parse_model_skeleton(std::string_view(bytes).substr(0, bytes.size() - 3), skeleton));
  EXPECT_FALSE(parse_model_skeleton("\x3a\x02\x0a\x05", skeleton));  // graph { node: cut short }
}

}  // namespace
}  // namespace strata::test
