#include "io/image.h"

#include <vector>

#include "io/io_test_util.h"
#include "testutil/test_images.h"

namespace strata::test {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;
using io::read_image;

// Encoded images written by Pillow (Image.fromarray(...).save(...)).
// The pixels of kRgbPng (testutil/test_images.h) with alpha 7 everywhere (RGBA).
constexpr auto kRgbaPng =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
    "\x02\x08\x06\x00\x00\x00\x72\xb6\x0d\x24\x00\x00\x00\x1a\x49\x44\x41\x54\x78\x9c\x63\xfc\xcf"
    "\xc0\xc0\xce\xf8\x9f\x81\x81\x85\x91\xe1\x3f\x83\x71\xfa\x59\x06\x00\x27\x37\x04\x73\xb8\x08"
    "\x32\x22\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82"sv;
// 2x2 gray + alpha (LA): gray 0, 128 / 255, 64.
constexpr auto kGrayAlphaPng =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
    "\x02\x08\x04\x00\x00\x00\xd8\xbf\xc5\xaf\x00\x00\x00\x12\x49\x44\x41\x54\x78\x9c\x63\x60\xf8"
    "\xdf\xc0\xc0\xf0\x9f\xcb\xe1\x3f\x00\x11\x1b\x03\xc8\x68\x29\xf2\x6f\x00\x00\x00\x00\x49\x45"
    "\x4e\x44\xae\x42\x60\x82"sv;
// 2x2 16-bit gray: 0, 65535 / 1000, 32768.
constexpr auto kGray16Png =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
    "\x02\x10\x00\x00\x00\x00\x07\x4d\x8e\xbb\x00\x00\x00\x12\x49\x44\x41\x54\x78\x9c\x63\x60\x60"
    "\xf8\xff\x9f\x81\xf9\x45\x03\x03\x00\x10\xc1\x03\x6a\x6a\xf9\x16\x22\x00\x00\x00\x00\x49\x45"
    "\x4e\x44\xae\x42\x60\x82"sv;
// kRgbPng's image as a 24-bit BMP.
constexpr auto kRgbBmp =
    "\x42\x4d\x46\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00\x02\x00\x00\x00\x02"
    "\x00\x00\x00\x01\x00\x18\x00\x00\x00\x00\x00\x10\x00\x00\x00\xc4\x0e\x00\x00\xc4\x0e\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\xcc\x66\x33\x00\x00\x00\x00\xff\x00\xff\x00\x00"
    "\x00"sv;
// 8x8 gray JPEG, every pixel 100.
constexpr auto kGrayJpeg =
    "\xff\xd8\xff\xe0\x00\x10\x4a\x46\x49\x46\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00"
    "\x43\x00\x03\x02\x02\x03\x02\x02\x03\x03\x03\x03\x04\x03\x03\x04\x05\x08\x05\x05\x04\x04\x05"
    "\x0a\x07\x07\x06\x08\x0c\x0a\x0c\x0c\x0b\x0a\x0b\x0b\x0d\x0e\x12\x10\x0d\x0e\x11\x0e\x0b\x0b"
    "\x10\x16\x10\x11\x13\x14\x15\x15\x15\x0c\x0f\x17\x18\x16\x14\x18\x12\x14\x15\x14\xff\xc0\x00"
    "\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00\xff\xc4\x00\x14\x00\x01\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x07\xff\xc4\x00\x14\x10\x01\x00\x00\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00\x34\x7f\xff\xd9"sv;

void expect_image(const Tensor& t, std::vector<int64_t> shape, std::vector<double> values) {
  EXPECT_EQ(t.dtype(), DType::kF32);
  EXPECT_EQ(t.shape(), shape);
  const std::vector<double> got = t.to_double();
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], values[i], 1e-6) << "at " << i;
}

TEST(Image, ReadsBinaryPgmWithComments) {
  ScratchDir dir;
  const auto path = dir.write("a.pgm",
                              "P5\n# made by hand\n3 2 # width height\n255\n"
                              "\x00\x33\xff\x80\x01\x02"sv);
  expect_image(read_image(path), {1, 1, 2, 3}, {0, 51 / 255., 1, 128 / 255., 1 / 255., 2 / 255.});
}

TEST(Image, ReadsBinaryPpmAsPlanarChannels) {
  ScratchDir dir;
  const auto path = dir.write("a.ppm", "P6 2 1 255\n\xff\x00\x33\x00\x80\xff"sv);
  expect_image(read_image(path), {1, 3, 1, 2}, {1, 0, 0, 128 / 255., 51 / 255., 1});
}

TEST(Image, ReadsSixteenBitSamplesBigEndian) {
  ScratchDir dir;
  expect_image(read_image(dir.write("a.pgm", "P5 2 1 65535\n\x01\x00\xff\xff"sv)), {1, 1, 1, 2},
               {256 / 65535., 1});
  expect_image(read_image(dir.write("b.ppm", "P6 1 1 1000\n\x03\xe8\x00\x00\x01\xf4"sv)),
               {1, 3, 1, 1}, {1, 0, 0.5});
}

TEST(Image, ReadsAsciiPgmAndPpm) {
  ScratchDir dir;
  expect_image(read_image(dir.write("a.pgm", "P2\n# comment\n2 2\n# max\n10\n0  5\n10\t2\n")),
               {1, 1, 2, 2}, {0, 0.5, 1, 0.2});
  expect_image(read_image(dir.write("b.ppm", "P3 1 2 255\n255 0 0\n0 0 255")), {1, 3, 2, 1},
               {1, 0, 0, 0, 0, 1});
}

TEST(Image, ReadsPngDroppingAlpha) {
  ScratchDir dir;
  const std::vector<double> rgb = {1, 0, 0, 51 / 255., 0, 1, 0, 102 / 255., 0, 0, 1, 204 / 255.};
  expect_image(read_image(dir.write("rgb.png", kRgbPng)), {1, 3, 2, 2}, rgb);
  expect_image(read_image(dir.write("rgba.png", kRgbaPng)), {1, 3, 2, 2}, rgb);
  expect_image(read_image(dir.write("la.png", kGrayAlphaPng)), {1, 1, 2, 2},
               {0, 128 / 255., 1, 64 / 255.});
  expect_image(read_image(dir.write("g16.png", kGray16Png)), {1, 1, 2, 2},
               {0, 1, 1000 / 65535., 32768 / 65535.});
}

// An empty IDAT chunk before the data is legal PNG (and once made stb_image copy 0 bytes into a
// null buffer, found by fuzz_tensor_files): it decodes to the same pixels.
TEST(Image, ReadsPngWithAnEmptyFirstDataChunk) {
  ScratchDir dir;
  const size_t first_chunk_after_header = 8 + 25;  // signature, then IHDR's 13 bytes + 12
  std::string png(kRgbPng);
  png.insert(first_chunk_after_header, "\x00\x00\x00\x00IDAT\x35\xaf\x06\x1e"s);  // CRC of "IDAT"
  const std::vector<double> rgb = {1, 0, 0, 51 / 255., 0, 1, 0, 102 / 255., 0, 0, 1, 204 / 255.};
  expect_image(read_image(dir.write("empty-idat.png", png)), {1, 3, 2, 2}, rgb);
}

TEST(Image, ReadsBmpAndJpeg) {
  ScratchDir dir;
  expect_image(read_image(dir.write("rgb.bmp", kRgbBmp)), {1, 3, 2, 2},
               {1, 0, 0, 51 / 255., 0, 1, 0, 102 / 255., 0, 0, 1, 204 / 255.});
  // The extension does not matter; the content does.
  expect_image(read_image(dir.write("gray.data", kGrayJpeg)), {1, 1, 8, 8},
               std::vector<double>(64, 100 / 255.));
}

TEST(Image, RejectsBadFilesNamingThem) {
  ScratchDir dir;
  const struct {
    std::string name, bytes, detail;
  } cases[] = {
      {"empty.pgm", "", "not a supported image"},
      {"gif.gif", "GIF89a\x01\x00\x01\x00", "not a supported image"},
      {"bitmap.pbm", "P4 1 1\n\x80", "unsupported Netpbm format P4"},
      {"no_height.pgm", "P5 3", "header is truncated (no height)"},
      {"no_maxval.pgm", "P5 3 2\n# only a comment", "header is truncated (no maxval)"},
      {"bad_width.pgm", "P5 x 2 255\n", "invalid width"},
      {"no_raster.pgm", "P5 1 1 255", "no whitespace after maxval"},
      {"maxval0.pgm", "P5 1 1 0\n\x00"s, "invalid maxval 0"},
      {"maxval_big.pgm", "P5 1 1 70000\n\x00\x00"s, "invalid maxval 70000"},
      {"zero_width.pgm", "P5 0 2 255\n", "zero width or height"},
      {"huge.pgm", "P5 100000 100000 255\n", "too large"},
      {"overflow.pgm", "P5 99999999999999999999999 99999999999999999999 255\n", "too large"},
      {"truncated.pgm", "P5 3 2 255\n\x01\x02\x03",
       "pixel data is truncated (expected 6 bytes, found 3)"},
      {"truncated16.ppm", "P6 1 1 65535\n\x01\x02\x03\x04", "expected 6 bytes, found 4"},
      {"over_max.pgm", "P5 2 1 100\n\x05\xc8", "pixel value 200 exceeds maxval 100"},
      {"ascii_short.pgm", "P2 2 2 255\n1 2 3    ",
       "pixel data is truncated (expected 4 samples, found 3)"},
      {"ascii_tiny.pgm", "P2 20 20 255\n1 2 3", "pixel data is truncated (expected 400 samples"},
      {"ascii_word.ppm", "P3 1 1 255\n1 two 3", "not a number"},
      {"ascii_over.pgm", "P2 1 1 15\n16", "pixel value 16 exceeds maxval 15"},
      {"cut.png", std::string(kRgbPng.substr(0, 40)), "cannot decode the PNG image"},
      {"cut.jpg", std::string(kGrayJpeg.substr(0, 100)), "cannot decode the JPEG image"},
      {"short.bmp", "BM garbage", "BMP header is truncated"},
      {"bad.bmp", "BM" + std::string(40, 'x'), "cannot decode the BMP image"},
      {"cut.bmp", std::string(kRgbBmp.substr(0, 60)),
       "BMP pixel data is truncated (expected 16 bytes, found 6)"},
  };
  for (const auto& c : cases) {
    const std::string path = dir.write(c.name, c.bytes);
    EXPECT_THROW(read_image(path), Error) << c.name;
    expect_error([&] { read_image(path); }, path, c.detail);
  }
  // A Huffman table with 510 codes (at most 256 exist) overflows a buffer in Debian's stb_image.
  std::string bad_huffman(kGrayJpeg);
  const size_t counts = bad_huffman.find("\xff\xc4"sv) + 5;
  bad_huffman[counts] = bad_huffman[counts + 1] = '\xff';
  const std::string bad_huffman_path = dir.write("huffman.jpg", bad_huffman);
  expect_error([&] { read_image(bad_huffman_path); }, bad_huffman_path, "corrupt Huffman table");
  expect_error([&] { read_image(dir.path("missing.png")); }, dir.path("missing.png"),
               "No such file");
}

}  // namespace
}  // namespace strata::test
