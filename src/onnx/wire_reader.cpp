#include "onnx/wire_reader.h"

namespace strata::onnx_import {

namespace {
// Group nesting deeper than this is refused, like protobuf's own recursion limit.
constexpr int kMaxGroupDepth = 100;
constexpr uint32_t kEndGroup = 4;
}  // namespace

uint64_t WireReader::varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= bytes_.size()) throw WireError{pos_};
    const auto byte = uint8_t(bytes_[pos_++]);
    value |= uint64_t(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw WireError{pos_};  // more than ten bytes
}

// Reads a length and returns the bytes it covers.
std::string_view WireReader::length_delimited() {
  const uint64_t n = varint();
  if (n > bytes_.size() - pos_) throw WireError{pos_};
  const std::string_view out = bytes_.substr(pos_, size_t(n));
  pos_ += size_t(n);
  return out;
}

// Skips one field's value after its tag.
void WireReader::skip(uint32_t type, uint32_t number, int depth) {
  size_t size = 0;
  switch (type) {
    case WireField::kVarint: varint(); return;
    case WireField::kFixed64: size = 8; break;
    case WireField::kFixed32: size = 4; break;
    case WireField::kBytes: length_delimited(); return;
    case WireField::kStartGroup: skip_group(number, depth + 1); return;
    default: throw WireError{pos_};  // an end-group without a start, or types 6 and 7
  }
  if (size > bytes_.size() - pos_) throw WireError{pos_};
  pos_ += size;
}

// Skips fields up to the end-group tag matching `number` (groups are obsolete; ONNX has none,
// but they are valid unknown fields).
void WireReader::skip_group(uint32_t number, int depth) {
  if (depth > kMaxGroupDepth) throw WireError{pos_};
  for (;;) {
    const uint64_t tag = varint();
    const auto type = uint32_t(tag & 7);
    const auto field = uint32_t(tag >> 3);
    if (tag > UINT32_MAX || field == 0) throw WireError{pos_};
    if (type == kEndGroup) {
      if (field != number) throw WireError{pos_};
      return;
    }
    skip(type, field, depth);
  }
}

bool WireReader::next(WireField& field) {
  if (pos_ == bytes_.size()) return false;
  const size_t start = pos_;
  const uint64_t tag = varint();
  if (tag > UINT32_MAX || (tag >> 3) == 0) throw WireError{start};
  field.number = uint32_t(tag >> 3);
  field.type = WireField::Type(tag & 7);
  field.varint = 0;
  field.payload = {};
  switch (field.type) {
    case WireField::kVarint: field.varint = varint(); break;
    case WireField::kBytes: field.payload = length_delimited(); break;
    default: skip(field.type, field.number, 0); break;
  }
  field.whole = bytes_.substr(start, pos_ - start);
  return true;
}

}  // namespace strata::onnx_import
