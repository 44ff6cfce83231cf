#include "io/npy.h"

#include <array>
#include <bit>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "io/file.h"

namespace strata::io {

static_assert(std::endian::native == std::endian::little, "npy I/O assumes a little-endian host");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int64_t kPrefixBytes = 8;    // magic + major + minor version bytes
constexpr int64_t kAlignment = 64;     // numpy pads the header so data starts at a multiple of 64
constexpr int64_t kGrowthDigits = 21;  // numpy leaves room to grow the first dimension in place

// Type codes without the byte-order character.
constexpr std::array<std::pair<std::string_view, DType>, 12> kTypeCodes = {{
    {"f4", DType::kF32},
    {"f8", DType::kF64},
    {"f2", DType::kF16},
    {"i1", DType::kI8},
    {"i2", DType::kI16},
    {"i4", DType::kI32},
    {"i8", DType::kI64},
    {"u1", DType::kU8},
    {"u2", DType::kU16},
    {"u4", DType::kU32},
    {"u8", DType::kU64},
    {"b1", DType::kBool},
}};

struct Header {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
};

std::string shape_repr(const std::vector<int64_t>& shape) {  // Python's repr of a tuple
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

DType dtype_from_descr(std::string_view descr) {
  if (descr.empty()) fail("header has an empty 'descr'");
  const char order = descr[0];
  const std::string_view code =
      order == '<' || order == '>' || order == '|' || order == '=' ? descr.substr(1) : descr;
  for (const auto& [name, dtype] : kTypeCodes) {
    if (code != name) continue;
    if (order == '>' && dtype_size(dtype) > 1)
      fail("big-endian data ('{}') is not supported; convert it with numpy: a.astype('<{}')", descr,
           code);
    return dtype;
  }
  if (code == "O") fail("object arrays (pickled Python objects) are not supported");
  fail("unsupported dtype '{}' (supported: float16/32/64, int8..int64, uint8..uint64, bool)",
       descr);
}

std::string descr_of(DType dtype) {
  for (const auto& [code, d] : kTypeCodes) {
    if (d == dtype) return fmt::format("{}{}", dtype_size(d) == 1 ? '|' : '<', code);
  }
  fail("dtype {} has no npy equivalent", dtype_name(dtype));
}

// Parses the Python dict literal numpy writes, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Header parse() {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;
    expect('{');
    while (!consume('}')) {
      const std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() == '[') fail("structured dtypes are not supported");
        descr = parse_string();
      } else if (key == "fortran_order") {
        fortran_order = parse_bool();
      } else if (key == "shape") {
        shape = parse_shape();
      } else {
        fail("header has an unexpected key '{}'", key);
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) fail("header has trailing characters after the dictionary");
    if (!descr || !fortran_order || !shape)
      fail("header lacks one of the keys 'descr', 'fortran_order' and 'shape'");
    if (*fortran_order)
      fail("Fortran-order arrays are not supported; save with np.save(f, np.ascontiguousarray(a))");
    return Header{dtype_from_descr(*descr), std::move(*shape)};
  }

 private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c) {
    if (!consume(c)) fail("header is not a valid dictionary (expected '{}' at offset {})", c, pos_);
  }

  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("header is not a valid dictionary (expected a string at offset {})", pos_);
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("header has an unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }

  bool parse_bool() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("header has an invalid 'fortran_order' (expected True or False)");
  }

  int64_t parse_dim() {
    skip_space();
    if (peek() < '0' || peek() > '9') fail("header has an invalid 'shape' (offset {})", pos_);
    int64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, peek() - '0', &value))
        fail("header has a shape dimension that is too large");
      ++pos_;
    }
    if (peek() == 'L') ++pos_;  // Python 2 long literal
    return value;
  }

  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    skip_space();
    const char close = peek() == '(' ? ')' : peek() == '[' ? ']' : '\0';
    if (!close) fail("header has an invalid 'shape' (expected a tuple)");
    ++pos_;
    while (!consume(close)) {
      shape.push_back(parse_dim());
      if (!consume(',')) {
        expect(close);
        break;
      }
    }
    return shape;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Bytes already in memory (an entry of an .npz archive), read like an InputFile.
class ByteSource {
 public:
  explicit ByteSource(std::string_view bytes) : bytes_(bytes) {}
  int64_t size() const { return int64_t(bytes_.size()); }
  int64_t remaining() const { return int64_t(bytes_.size() - position_); }
  void read(void* dst, int64_t n) {
    std::memcpy(dst, bytes_.data() + position_, size_t(n));
    position_ += size_t(n);
  }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
};

template <class Source>
Tensor read_npy_from(Source& file) {
  std::array<char, kPrefixBytes> prefix{};
  if (file.size() < kPrefixBytes) fail("not an npy file (only {} bytes)", file.size());
  file.read(prefix.data(), kPrefixBytes);
  if (std::string_view(prefix.data(), kMagic.size()) != kMagic)
    fail("not an npy file (the magic bytes \\x93NUMPY are missing)");
  const int major = uint8_t(prefix[6]), minor = uint8_t(prefix[7]);
  if (major < 1 || major > 3 || minor != 0)
    fail("unsupported npy format version {}.{} (supported: 1.0, 2.0, 3.0)", major, minor);

  // Version 1.0 stores the header length in 2 bytes, later versions in 4 (little-endian).
  const int64_t length_bytes = major == 1 ? 2 : 4;
  if (file.remaining() < length_bytes) fail("header is truncated");
  std::array<uint8_t, 4> length_field{};
  file.read(length_field.data(), length_bytes);
  int64_t header_length = 0;
  for (int64_t i = length_bytes - 1; i >= 0; --i)
    header_length = header_length * 256 + length_field[size_t(i)];
  if (header_length > file.remaining())
    fail("header is truncated (expected {} bytes, found {})", header_length, file.remaining());
  std::string header_text(size_t(header_length), '\0');
  file.read(header_text.data(), header_length);
  const Header header = HeaderParser(header_text).parse();

  const int64_t numel = checked_numel(header.shape);
  const int64_t expected = checked_mul(numel, int64_t(dtype_size(header.dtype)));
  if (file.remaining() < expected)
    fail("data is truncated (expected {} bytes, found {})", expected, file.remaining());
  if (file.remaining() > expected)
    fail("data length does not match the shape {} (expected {} bytes, found {})",
         shape_repr(header.shape), expected, file.remaining());
  Tensor t = Tensor::zeros(header.dtype, header.shape);
  file.read(t.raw(), expected);
  if (header.dtype == DType::kBool) {  // any nonzero byte is true; keep bools canonical
    auto* bytes = static_cast<uint8_t*>(t.raw());
    for (int64_t i = 0; i < numel; ++i) bytes[i] = bytes[i] != 0;
  }
  return t;
}

// The header exactly as numpy 1.24 writes it.
std::string npy_header(DType dtype, const std::vector<int64_t>& shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 descr_of(dtype), shape_repr(shape));
  if (!shape.empty())
    dict.append(size_t(kGrowthDigits - int64_t(std::to_string(shape[0]).size())), ' ');
  // Like numpy: version 1.0 unless the padded header does not fit its 2-byte length field.
  const auto padding = [&](int64_t length_bytes) {
    return kAlignment - (kPrefixBytes + length_bytes + int64_t(dict.size()) + 1) % kAlignment;
  };
  const int64_t length_bytes = int64_t(dict.size()) + 1 + padding(2) > 65535 ? 4 : 2;
  dict.append(size_t(padding(length_bytes)), ' ');
  dict += '\n';

  std::string out(kMagic);
  out += char(length_bytes == 2 ? 1 : 2);
  out += char(0);
  for (int64_t i = 0, n = int64_t(dict.size()); i < length_bytes; ++i, n >>= 8)
    out += char(n & 0xff);
  return out + dict;
}

}  // namespace

Tensor read_npy(const std::string& path) {
  return with_path_context(path, [&] {
    InputFile file(path);
    return read_npy_from(file);
  });
}

Tensor read_npy_bytes(std::string_view bytes, const std::string& name) {
  return with_path_context(name, [&] {
    ByteSource source(bytes);
    return read_npy_from(source);
  });
}

void write_npy(const std::string& path, const Tensor& t) {
  with_path_context(path, [&] {
    const std::string header = npy_header(t.dtype(), t.shape());
    OutputFile file(path);
    file.write(header.data(), header.size());
    file.write(t.raw(), t.nbytes());
    file.close();
  });
}

}  // namespace strata::io
