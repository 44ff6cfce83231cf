// TensorReader: raw bytes in the mapped file become views where their address suits the element
// type and copies otherwise; the read policy leaves large tensors without data; sizes are checked
// either way.
#include "onnx/tensor_proto.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>

#include "core/narrow_types.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

using onnx_import::LoadedTensor;
using onnx_import::MappedFile;
using onnx_import::ReadPolicy;
using onnx_import::TensorReader;

onnx::TensorProto float_proto(const std::vector<int64_t>& dims) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) p.add_dims(d);
  return p;
}

std::string floats_bytes(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

// A file holding one junk byte, three more, then four floats at offset 4 and again at offset 21.
class TensorReaderRaw : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string bytes =
        "JJJJ" + floats_bytes({1, 2, 3, 4}) + "JJJJJ" + floats_bytes({1, 2, 3, 4});
    file = MappedFile::open(dir.write("model.onnx", bytes), "a test file");
  }
  std::string_view at(size_t offset) const { return file->bytes().substr(offset, 16); }
  TempDir dir;
  std::shared_ptr<const MappedFile> file;
};

TEST_F(TensorReaderRaw, AlignedBytesAreAViewOfTheFile) {
  TensorReader reader(file, dir.root().string());
  const LoadedTensor t = reader.read(float_proto({2, 2}), at(4), "w");
  ASSERT_TRUE(t.data);
  EXPECT_EQ(t.data->raw(), file->bytes().data() + 4);
  EXPECT_EQ(t.data->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(TensorReaderRaw, MisalignedBytesAreCopied) {
  TensorReader reader(file, dir.root().string());
  const LoadedTensor t = reader.read(float_proto({2, 2}), at(25), "w");
  ASSERT_TRUE(t.data);
  EXPECT_NE(t.data->raw(), file->bytes().data() + 25);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data->raw()) % alignof(float), 0u);
  EXPECT_EQ(t.data->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(TensorReaderRaw, OneByteTypesAreAlwaysViews) {
  TensorReader reader(file, dir.root().string());
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::UINT8);
  p.add_dims(3);
  const LoadedTensor t = reader.read(p, file->bytes().substr(1, 3), "w");
  EXPECT_EQ(t.data->raw(), file->bytes().data() + 1);
}

TEST_F(TensorReaderRaw, ViewsKeepTheFileAlive) {
  std::optional<Tensor> t;
  {
    TensorReader reader(file, dir.root().string());
    t = reader.read(float_proto({4}), at(4), "w").data;
    file.reset();
  }
  std::filesystem::remove(dir.path("model.onnx"));
  EXPECT_EQ(t->to_double(), (std::vector<double>{1, 2, 3, 4}));
}

TEST_F(TensorReaderRaw, LargeTensorsKeepTypeAndShapeOnly) {
  TensorReader reader(file, dir.root().string());
  const ReadPolicy small_only{8, false};
  const LoadedTensor t = reader.read(float_proto({2, 2}), at(4), "w", small_only);
  EXPECT_FALSE(t.data);
  EXPECT_EQ(t.dtype, DType::kF32);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(reader.read(float_proto({2}), file->bytes().substr(4, 8), "v", small_only).data);
}

TEST_F(TensorReaderRaw, SizesAreCheckedEvenWhenDataIsNotRead) {
  TensorReader reader(file, dir.root().string());
  const ReadPolicy none{0, true};
  expect_error(
      [&] {
        reader.read(float_proto({2, 3}), at(4), "m.onnx: initializer 'w'", none);
      },
      {"initializer 'w'", "raw data has 16 bytes but its shape needs 24"});
  onnx::TensorProto typed = float_proto({3});
  typed.add_float_data(1);
  expect_error([&] { reader.read(typed, std::nullopt, "initializer 't'", none); },
               {"initializer 't'", "holds 1 values but its shape needs 3"});
  expect_error(
      [&] {
        reader.read(float_proto({1 << 30, 1 << 30}), at(4), "big", none);
      },
      {"big", "too large"});
}

TEST(TensorReaderTyped, LargeTypedTensorsAreLeftUnreadOnRequest) {
  onnx::TensorProto p = float_proto({3});
  for (float v : {1.f, 2.f, 3.f}) p.add_float_data(v);
  TensorReader reader(nullptr, "");
  EXPECT_FALSE(reader.read(p, std::nullopt, "t", {8, false}).data);
  EXPECT_EQ(reader.read(p, std::nullopt, "t").data->to_double(), (std::vector<double>{1, 2, 3}));
}

// 4-bit integers are packed two per byte (low nibble first) in files, one per byte in memory.
TEST(TensorReaderPacked, Int4IsUnpackedOnReadAndPackedOnWrite) {
  onnx::TensorProto p;
  p.set_data_type(22);
  p.add_dims(3);
  p.set_raw_data(std::string("\x87\x0f", 2));  // 7, -8, then -1 and a padding nibble
  TensorReader reader(nullptr, "");
  const Tensor t = *reader.read(p, std::nullopt, "t").data;
  EXPECT_EQ(t.dtype(), kI4);
  EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{7, -8, -1}));
  onnx::TensorProto back;
  ASSERT_TRUE(back.ParseFromString(onnx_import::serialize_tensor_pb(t, "t")));
  EXPECT_EQ(back.raw_data(), std::string("\x87\x0f", 2));
  p.set_raw_data(std::string("\x87\x0f\x00", 3));
  expect_error([&] { reader.read(p, std::nullopt, "t"); }, {"t", "raw data has 3 bytes"});
  // Typed: packed pairs in int32_data.
  onnx::TensorProto typed;
  typed.set_data_type(21);
  typed.add_dims(3);
  typed.add_int32_data(0x21);
  typed.add_int32_data(0x0f);
  EXPECT_EQ(reader.read(typed, std::nullopt, "u").data->to_int64(),
            (std::vector<int64_t>{1, 2, 15}));
}

TEST(TensorReaderPacked, Int2IsFourPerByte) {
  onnx::TensorProto p;
  p.set_data_type(26);  // INT2
  p.add_dims(5);
  p.set_raw_data(std::string("\x39\x03", 2));  // 1, -2, -1, 0 | -1
  TensorReader reader(nullptr, "");
  const Tensor t = *reader.read(p, std::nullopt, "t").data;
  EXPECT_EQ(t.to_int64(), (std::vector<int64_t>{1, -2, -1, 0, -1}));
  onnx::TensorProto back;
  ASSERT_TRUE(back.ParseFromString(onnx_import::serialize_tensor_pb(t, "t")));
  EXPECT_EQ(back.raw_data(), std::string("\x39\x03", 2));
}

TEST(TensorReaderPacked, Float8BitsInInt32Data) {
  onnx::TensorProto p;
  p.set_data_type(19);
  p.add_dims(2);
  p.add_int32_data(0x3c);  // 1.0
  p.add_int32_data(0xc0);  // -2.0
  TensorReader reader(nullptr, "");
  EXPECT_EQ(reader.read(p, std::nullopt, "f").data->to_double(), (std::vector<double>{1, -2}));
}

// Two tensors of 4 floats in one external file, at offsets 0 and 18.
class TensorReaderExternal : public ::testing::Test {
 protected:
  onnx::TensorProto external(const std::string& location, int64_t offset) {
    onnx::TensorProto p = float_proto({4});
    p.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = p.add_external_data();
    e->set_key("location");
    e->set_value(location);
    e = p.add_external_data();
    e->set_key("offset");
    e->set_value(std::to_string(offset));
    return p;
  }
  void SetUp() override {
    dir.write("w.bin", floats_bytes({1, 2, 3, 4}) + "JJ" + floats_bytes({5, 6, 7, 8}));
  }
  TempDir dir;
};

TEST_F(TensorReaderExternal, AlignedDataIsAViewCopiedOtherwise) {
  TensorReader reader(nullptr, dir.root().string());
  std::optional<Tensor> a = reader.read(external("w.bin", 0), std::nullopt, "a").data;
  std::optional<Tensor> b = reader.read(external("w.bin", 18), std::nullopt, "b").data;
  EXPECT_EQ(a->to_double(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(b->to_double(), (std::vector<double>{5, 6, 7, 8}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->raw()) % 4096, 0u) << "the start of the mapping";
  std::filesystem::remove(dir.path("w.bin"));
  EXPECT_EQ(a->to_double(), (std::vector<double>{1, 2, 3, 4})) << "the view keeps the mapping";
}

TEST_F(TensorReaderExternal, MissingFileIsAnErrorUnlessTolerated) {
  TensorReader strict(nullptr, dir.root().string());
  expect_error([&] { strict.read(external("gone.bin", 0), std::nullopt, "initializer 'a'"); },
               {"initializer 'a'", "gone.bin", "does not exist"});
  TensorReader lenient(nullptr, dir.root().string());
  const ReadPolicy tolerant{1 << 20, true};
  const LoadedTensor a = lenient.read(external("gone.bin", 0), std::nullopt, "a", tolerant);
  const LoadedTensor b = lenient.read(external("gone.bin", 16), std::nullopt, "b", tolerant);
  EXPECT_FALSE(a.data);
  EXPECT_FALSE(b.data);
  EXPECT_EQ(b.dims, (std::vector<int64_t>{4}));
  ASSERT_EQ(lenient.warnings().size(), 1u) << "one warning per missing file";
  EXPECT_NE(lenient.warnings()[0].find("gone.bin"), std::string::npos) << lenient.warnings()[0];
  EXPECT_TRUE(lenient.read(external("w.bin", 0), std::nullopt, "c", tolerant).data);
}

TEST_F(TensorReaderExternal, BoundsAreCheckedEvenWhenDataIsNotRead) {
  TensorReader reader(nullptr, dir.root().string());
  expect_error(
      [&] {
        reader.read(external("w.bin", 30), std::nullopt, "initializer 'a'", {0, true});
      },
      {"initializer 'a'", "w.bin", "has only 34 bytes"});
  expect_error(
      [&] {
        reader.read(external("../w.bin", 0), std::nullopt, "a", {0, true});
      },
      {"leaves the model's folder"});
}

}  // namespace
}  // namespace strata::test
