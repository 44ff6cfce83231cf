// A reader of the protobuf wire format, field by field, without copying: the loader walks a
// ModelProto with it to find the initializers' raw bytes in the file instead of parsing them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace strata::onnx_import {

// Malformed bytes (truncated field, bad wire type, varint too long); `offset` is where, relative to
// the start of the bytes given to the reader.
struct WireError {
  size_t offset;
};

struct WireField {
  enum Type : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kStartGroup = 3, kFixed32 = 5 };
  uint32_t number = 0;
  Type type = kVarint;
  uint64_t varint = 0;       // the value of a kVarint field
  std::string_view payload;  // the contents of a kBytes field
  std::string_view whole;    // the whole field, tag included, for copying it elsewhere
};

class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}
  // Reads the next field into `field`; false at the end. Throws WireError on malformed bytes.
  bool next(WireField& field);

 private:
  uint64_t varint();
  std::string_view length_delimited();
  void skip_group(uint32_t number, int depth);
  void skip(uint32_t type, uint32_t number, int depth);

  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace strata::onnx_import
