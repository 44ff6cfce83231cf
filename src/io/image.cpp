#include "io/image.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string_view>
#include <vector>

#include "core/checked.h"
#include "io/file.h"

// stb_image is compiled here, privately (static functions), for the formats we accept only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wtype-limits"
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_FAILURE_USERMSG
// A PNG whose first IDAT chunk is empty makes stb_image copy 0 bytes into a buffer it has not
// allocated yet: memcpy(NULL, p, 0), undefined behaviour (found by fuzz_tensor_files). Its copies
// go through this wrapper, which skips empty ones; <cstring> comes first so only stb's calls are
// renamed.
#include <cstring>
static void* stbi_copy_bytes(void* to, const void* from, size_t n) {
  return n == 0 ? to : std::memcpy(to, from, n);
}
#define memcpy stbi_copy_bytes
#include <stb/stb_image.h>
#undef memcpy
#pragma GCC diagnostic pop

namespace strata::io {

namespace {

// Largest image accepted (W x H): 8k x 8k. Stops decompression bombs from exhausting memory.
constexpr int64_t kMaxPixels = int64_t(1) << 26;
// Images are read into memory whole, and stb_image takes an int length.
constexpr int64_t kMaxImageFileBytes = std::numeric_limits<int>::max();

void check_dimensions(int64_t width, int64_t height) {
  if (width <= 0 || height <= 0) fail("image has zero width or height ({} x {})", width, height);
  if (checked_mul(width, height) > kMaxPixels)
    fail("image is too large ({} x {} pixels; the limit is {} pixels)", width, height, kMaxPixels);
}

// A decoded image: interleaved samples (H, W, C), each in [0, maxval]; C is 1 (gray) or 3.
struct Raster {
  int64_t width = 0, height = 0, channels = 0;
  double maxval = 255;
  std::vector<uint16_t> samples;
};

// Interleaved samples (H, W, C) scaled by 1/maxval into a [1, C, H, W] float tensor.
Tensor planar_from_raster(const Raster& r) {
  Tensor t = Tensor::zeros(DType::kF32, {1, r.channels, r.height, r.width});
  float* out = t.data<float>();
  const int64_t plane = r.width * r.height;
  for (int64_t p = 0; p < plane; ++p) {
    for (int64_t c = 0; c < r.channels; ++c)
      out[c * plane + p] = float(double(r.samples[size_t(p * r.channels + c)]) / r.maxval);
  }
  return t;
}

template <class Sample>
Raster raster_of(const Sample* samples, int64_t width, int64_t height, int64_t channels,
                 double maxval) {
  return {width, height, channels, maxval,
          std::vector<uint16_t>(samples, samples + width * height * channels)};
}

// Netpbm gray and color maps (P2, P3 ASCII; P5, P6 binary).
class PnmReader {
 public:
  explicit PnmReader(std::string_view bytes) : bytes_(bytes) {}

  Raster read() {
    const char kind = bytes_[1];
    if (kind != '2' && kind != '3' && kind != '5' && kind != '6')
      fail("unsupported Netpbm format P{} (supported: P2, P3, P5, P6)", kind);
    pos_ = 2;
    const int64_t width = header_number("width");
    const int64_t height = header_number("height");
    const int64_t maxval = header_number("maxval");
    if (maxval < 1 || maxval > 65535) fail("invalid maxval {} (expected 1..65535)", maxval);
    check_dimensions(width, height);
    const int64_t channels = kind == '3' || kind == '6' ? 3 : 1;
    const int64_t count = checked_mul(checked_mul(width, height), channels);

    std::vector<uint16_t> samples;
    if (kind == '5' || kind == '6') {
      if (!is_space(peek())) fail("header is truncated or malformed (no whitespace after maxval)");
      ++pos_;  // exactly one whitespace character separates the header from the raster
      samples = binary_samples(count, maxval);
    } else {
      samples = ascii_samples(count, maxval);
    }
    return {width, height, channels, double(maxval), std::move(samples)};
  }

 private:
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  char peek() const { return pos_ < bytes_.size() ? bytes_[pos_] : '\0'; }
  int64_t remaining() const { return int64_t(bytes_.size() - pos_); }

  // Whitespace and '#' comments (to the end of the line) may precede any header field.
  void skip_header_space() {
    while (pos_ < bytes_.size()) {
      if (bytes_[pos_] == '#') {
        while (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r') ++pos_;
      } else if (is_space(bytes_[pos_])) {
        ++pos_;
      } else {
        return;
      }
    }
  }

  // A decimal number, saturating well above any valid value so overflow cannot happen.
  int64_t number() {
    int64_t value = 0;
    while (is_digit(peek())) {
      value = std::min<int64_t>(value * 10 + (peek() - '0'), int64_t(1) << 40);
      ++pos_;
    }
    return value;
  }

  int64_t header_number(const char* field) {
    skip_header_space();
    if (pos_ >= bytes_.size()) fail("header is truncated (no {})", field);
    if (!is_digit(peek())) fail("header is malformed (invalid {})", field);
    return number();
  }

  std::vector<uint16_t> binary_samples(int64_t count, int64_t maxval) {
    const int64_t sample_bytes = maxval > 255 ? 2 : 1;
    const int64_t expected = checked_mul(count, sample_bytes);
    if (remaining() < expected)
      fail("pixel data is truncated (expected {} bytes, found {})", expected, remaining());
    const auto* raster = reinterpret_cast<const uint8_t*>(bytes_.data() + pos_);
    std::vector<uint16_t> samples(size_t(count), 0);
    for (int64_t i = 0; i < count; ++i) {
      // Two-byte samples are big-endian.
      const int64_t v = sample_bytes == 1 ? raster[i] : raster[2 * i] * 256 + raster[2 * i + 1];
      if (v > maxval) fail("pixel value {} exceeds maxval {}", v, maxval);
      samples[size_t(i)] = uint16_t(v);
    }
    return samples;
  }

  std::vector<uint16_t> ascii_samples(int64_t count, int64_t maxval) {
    // Every sample takes at least one byte: check before allocating.
    if (remaining() < count)
      fail("pixel data is truncated (expected {} samples, found at most {} bytes)", count,
           remaining());
    std::vector<uint16_t> samples(size_t(count), 0);
    for (int64_t i = 0; i < count; ++i) {
      while (is_space(peek())) ++pos_;
      if (pos_ >= bytes_.size())
        fail("pixel data is truncated (expected {} samples, found {})", count, i);
      if (!is_digit(peek())) fail("pixel data is malformed (not a number at offset {})", pos_);
      const int64_t v = number();
      if (v > maxval) fail("pixel value {} exceeds maxval {}", v, maxval);
      samples[size_t(i)] = uint16_t(v);
    }
    return samples;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

// Debian's stb_image (2022-09) lacks the upstream check that a JPEG Huffman table has at most 256
// codes, and writes past a buffer on such a file. Walk the markers like stb does and reject them.
void check_jpeg_huffman_tables(std::string_view bytes) {
  const auto byte = [&](size_t i) { return i < bytes.size() ? uint8_t(bytes[i]) : uint8_t(0); };
  size_t pos = 2;  // after the start-of-image marker
  while (pos + 1 < bytes.size()) {
    if (byte(pos) != 0xff) {  // entropy-coded data or garbage between segments
      ++pos;
      continue;
    }
    const uint8_t marker = byte(pos + 1);
    if (marker == 0xff) {  // fill byte
      ++pos;
      continue;
    }
    pos += 2;
    // A stuffed zero, restart markers and TEM carry no length.
    if (marker == 0x00 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01) continue;
    if (marker == 0xd9) return;  // end of image
    const size_t length = byte(pos) * 256u + byte(pos + 1);
    if (marker == 0xc4) {
      // stb reads tables (class/id byte, 16 code counts, symbols) while the segment has bytes
      // left, even when a table runs past the segment's end.
      size_t codes = 0;
      for (size_t table = pos + 2; table < pos + length; table += 17 + codes) {
        codes = 0;
        for (size_t i = 0; i < 16; ++i) codes += byte(table + 1 + i);
        if (codes > 256) fail("cannot decode the JPEG image: corrupt Huffman table");
      }
    }
    pos += std::max<size_t>(length, 2);
  }
}

// stb_image decodes a truncated uncompressed BMP, filling the missing rows with zeros; check the
// length of the pixel array first.
void check_bmp_length(std::string_view bytes) {
  const auto le = [&](size_t at, size_t count) {
    uint32_t v = 0;
    for (size_t i = count; i-- > 0;) v = v * 256 + uint8_t(bytes[at + i]);
    return v;
  };
  if (bytes.size() < 18) fail("BMP header is truncated");
  const bool core_header = le(14, 4) == 12;  // OS/2 bitmaps have 16-bit sizes
  if (bytes.size() < (core_header ? 26u : 34u)) fail("BMP header is truncated");
  const int64_t offset = le(10, 4);
  const int64_t width = core_header ? le(18, 2) : int32_t(le(18, 4));
  const int64_t height = core_header ? le(20, 2) : std::abs(int64_t(int32_t(le(22, 4))));
  const int64_t bits = core_header ? le(24, 2) : le(28, 2);
  const int64_t compression = core_header ? 0 : le(30, 4);
  if ((compression != 0 && compression != 3) || width <= 0 || bits < 1 || bits > 32) return;
  const int64_t row_bytes = (bits * width + 31) / 32 * 4;  // rows are padded to 4 bytes
  const int64_t expected = checked_mul(row_bytes, height);
  const int64_t found = std::max<int64_t>(0, int64_t(bytes.size()) - offset);
  if (found < expected)
    fail("BMP pixel data is truncated (expected {} bytes, found {})", expected, found);
}

struct StbFree {
  void operator()(void* p) const { stbi_image_free(p); }
};

// stbi_info tries every format and keeps the last one's generic reason; decoding gives the
// specific one.
std::string decode_failure_reason(const stbi_uc* data, int length) {
  int width = 0, height = 0, components = 0;
  std::unique_ptr<stbi_uc, StbFree> pixels(
      stbi_load_from_memory(data, length, &width, &height, &components, 0));
  return pixels ? "corrupt header" : stbi_failure_reason();
}

// PNG, JPEG and BMP through stb_image; 16-bit PNGs keep their precision.
Raster read_with_stb(std::string_view bytes, const char* format) {
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int length = int(bytes.size());
  int width = 0, height = 0, components = 0;
  if (!stbi_info_from_memory(data, length, &width, &height, &components))
    fail("cannot decode the {} image: {}", format, decode_failure_reason(data, length));
  check_dimensions(width, height);
  const int channels = components <= 2 ? 1 : 3;  // gray(+alpha) or color(+alpha); alpha dropped
  int components_in_file = 0;
  if (stbi_is_16_bit_from_memory(data, length)) {
    std::unique_ptr<stbi_us, StbFree> pixels(
        stbi_load_16_from_memory(data, length, &width, &height, &components_in_file, channels));
    if (!pixels) fail("cannot decode the {} image: {}", format, stbi_failure_reason());
    return raster_of(pixels.get(), width, height, channels, 65535.0);
  }
  std::unique_ptr<stbi_uc, StbFree> pixels(
      stbi_load_from_memory(data, length, &width, &height, &components_in_file, channels));
  if (!pixels) fail("cannot decode the {} image: {}", format, stbi_failure_reason());
  return raster_of(pixels.get(), width, height, channels, 255.0);
}

// The format is detected from the first bytes.
Raster decode(std::string_view view) {
  if (int64_t(view.size()) > kMaxImageFileBytes) fail("image is too large ({} bytes)", view.size());
  if (view.starts_with("\x89PNG\r\n\x1a\n")) return read_with_stb(view, "PNG");
  if (view.starts_with("\xff\xd8\xff")) {
    check_jpeg_huffman_tables(view);
    return read_with_stb(view, "JPEG");
  }
  if (view.starts_with("BM")) {
    check_bmp_length(view);
    return read_with_stb(view, "BMP");
  }
  if (view.size() >= 2 && view[0] == 'P' && view[1] >= '0' && view[1] <= '9')
    return PnmReader(view).read();
  fail("not a supported image (expected PNG, JPEG, BMP, PGM or PPM)");
}

Tensor read_image_unlabelled(const std::string& path) {
  InputFile file(path);
  const std::string bytes = file.read_rest(kMaxImageFileBytes);
  return planar_from_raster(decode(bytes));
}

}  // namespace

Tensor read_image(const std::string& path) {
  return with_path_context(path, [&] { return read_image_unlabelled(path); });
}

Tensor decode_image_hwc(std::string_view bytes) {
  const Raster r = decode(bytes);
  Tensor t = Tensor::zeros(DType::kU8, {r.height, r.width, r.channels});
  uint8_t* out = t.data<uint8_t>();
  for (size_t i = 0; i < r.samples.size(); ++i)
    out[i] = uint8_t(std::lround(double(r.samples[i]) * 255.0 / r.maxval));
  return t;
}

}  // namespace strata::io
