// The protobuf wire-format walker: fields as protobuf writes them, and every malformed byte
// string refused with a WireError, never a read past the end.
#include "onnx/wire_reader.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

namespace strata::test {
namespace {

using onnx_import::WireError;
using onnx_import::WireField;
using onnx_import::WireReader;

std::vector<WireField> read_fields(std::string_view bytes) {
  std::vector<WireField> fields;
  WireReader reader(bytes);
  WireField f;
  while (reader.next(f)) fields.push_back(f);
  return fields;
}

TEST(WireReader, ReadsWhatProtobufWrites) {
  onnx::TensorProto t;
  t.add_dims(3);
  t.add_dims(300);
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.set_name("w");
  t.set_raw_data(std::string(3600, 'x'));
  const std::string bytes = t.SerializeAsString();
  const std::vector<WireField> fields = read_fields(bytes);
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].number, 1u);  // dims, unpacked in proto2
  EXPECT_EQ(fields[0].varint, 3u);
  EXPECT_EQ(fields[1].varint, 300u);
  EXPECT_EQ(fields[2].number, 2u);
  EXPECT_EQ(fields[2].varint, uint64_t(onnx::TensorProto::FLOAT));
  EXPECT_EQ(fields[3].payload, "w");
  EXPECT_EQ(fields[4].number, 9u);
  EXPECT_EQ(fields[4].type, WireField::kBytes);
  EXPECT_EQ(fields[4].payload, std::string(3600, 'x'));
  std::string whole;
  for (const WireField& f : fields) whole += f.whole;
  EXPECT_EQ(whole, bytes) << "the fields' whole bytes cover the message exactly";
}

TEST(WireReader, FixedWidthFieldsAndGroups) {
  // field 1 fixed32, field 2 fixed64, field 3 a group holding a varint, field 4 varint 150.
  const std::string bytes(
      "\x0d\x01\x02\x03\x04"
      "\x11\x01\x02\x03\x04\x05\x06\x07\x08"
      "\x1b\x08\x01\x1c"
      "\x20\x96\x01",
      21);
  const std::vector<WireField> fields = read_fields(bytes);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].type, WireField::kFixed32);
  EXPECT_EQ(fields[1].type, WireField::kFixed64);
  EXPECT_EQ(fields[2].type, WireField::kStartGroup);
  EXPECT_EQ(fields[2].whole.size(), 4u);
  EXPECT_EQ(fields[3].varint, 150u);
}

TEST(WireReader, MalformedBytesAreRefused) {
  const std::vector<std::string> bad = {
      std::string("\x0a\x05"
                  "abc",
                  5),                              // length past the end
      std::string("\x0a\xff\xff\xff\xff\x0f", 6),  // a 4 GiB length in six bytes
      std::string("\x08", 1),                      // varint missing
      std::string("\x08\x80\x80", 3),              // varint cut short
      std::string(11, '\x80'),                     // varint longer than ten bytes
      std::string("\x0d\x01\x02", 3),              // fixed32 cut short
      std::string("\x0c", 1),                      // end-group without a start
      std::string("\x0e\x00", 2),                  // wire type 6
      std::string("\x00\x01", 2),                  // field number 0
      std::string("\x1b\x08\x01", 3),              // group never closed
      std::string("\x1b\x24", 2),                  // group closed with another field's end
  };
  for (const std::string& bytes : bad)
    EXPECT_THROW(read_fields(bytes), WireError) << testing::PrintToString(bytes);
}

TEST(WireReader, DeeplyNestedGroupsAreRefused) {
  std::string bytes;
  for (int i = 0; i < 200; ++i) bytes += "\x0b";  // field 1 start-group, 200 deep
  for (int i = 0; i < 200; ++i) bytes += "\x0c";
  EXPECT_THROW(read_fields(bytes), WireError);
}

TEST(WireReader, EveryTruncationInsideAFieldIsRefused) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.mutable_graph()->set_name("g");
  auto* t = m.mutable_graph()->add_initializer();
  t->set_name("w");
  t->set_raw_data(std::string(200, 'y'));
  const std::string bytes = m.SerializeAsString();
  std::set<size_t> boundaries = {0};
  for (const WireField& f : read_fields(bytes))
    boundaries.insert(size_t(f.whole.data() + f.whole.size() - bytes.data()));
  ASSERT_EQ(boundaries.size(), 3u);  // ir_version, graph
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A buffer of exactly n bytes, so that AddressSanitizer sees any read past the end.
    const std::vector<char> prefix(bytes.begin(), bytes.begin() + ptrdiff_t(n));
    const std::string_view view(prefix.data(), n);
    if (boundaries.count(n))
      EXPECT_NO_THROW(read_fields(view)) << n;
    else
      EXPECT_THROW(read_fields(view), WireError) << n;
  }
}

}  // namespace
}  // namespace strata::test
