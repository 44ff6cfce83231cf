// ImageDecoder (src/ops/image_decoder.cpp): RGB, BGR and Grayscale from PNG and PPM bytes, the
// shape known from a constant input, and refusals of other formats and bad attributes.
#include <string_view>

#include "ops/infer_util.h"
#include "ops/op_cost_util.h"
#include "ops/op_test_util.h"
#include "testutil/test_images.h"

namespace strata::test {
namespace {

using namespace std::string_view_literals;

Tensor bytes_tensor(std::string_view bytes) {
  Tensor t = Tensor::zeros(DType::kU8, {int64_t(bytes.size())});
  for (size_t i = 0; i < bytes.size(); ++i) t.data<uint8_t>()[i] = uint8_t(bytes[i]);
  return t;
}

Tensor decode(std::string_view bytes, const char* format) {
  OpCall call = op_call("ImageDecoder", 20, {{"pixel_format", attr_string(format)}});
  call.inputs = {bytes_tensor(bytes)};
  return run_op(call)[0];
}

TEST(ImageDecoder, PixelFormats) {
  const Tensor rgb = decode(kRgbPng, "RGB");
  ASSERT_EQ(rgb.dtype(), DType::kU8);
  EXPECT_EQ(rgb.shape(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(rgb.to_int64(), (std::vector<int64_t>{255, 0, 0, 0, 255, 0, 0, 0, 255, 51, 102, 204}));
  EXPECT_EQ(decode(kRgbPng, "BGR").to_int64(),
            (std::vector<int64_t>{0, 0, 255, 0, 255, 0, 255, 0, 0, 204, 102, 51}));
  // Luma (19595 R + 38470 G + 7471 B + 2^15) >> 16: 76, 150, 29 and 98 (98.88 truncated).
  const Tensor gray = decode(kRgbPng, "Grayscale");
  EXPECT_EQ(gray.shape(), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(gray.to_int64(), (std::vector<int64_t>{76, 150, 29, 98}));
}

TEST(ImageDecoder, NetpbmAndGrayImages) {
  const std::string ppm = "P6\n2 1\n255\n\x01\x02\x03\xfa\xfb\xfc";
  EXPECT_EQ(decode(ppm, "RGB").to_int64(), (std::vector<int64_t>{1, 2, 3, 250, 251, 252}));
  const std::string pgm = "P5 2 1 15 \x0f\x05";  // maxval 15: scaled to 0..255
  EXPECT_EQ(decode(pgm, "Grayscale").to_int64(), (std::vector<int64_t>{255, 85}));
  EXPECT_EQ(decode(pgm, "BGR").to_int64(), (std::vector<int64_t>{255, 255, 255, 85, 85, 85}));
}

TEST(ImageDecoder, ShapeFromAConstantInputElseUnknown) {
  OpCall call = op_call("ImageDecoder", 20);
  const std::vector<ops::Meta> known_out = infer_only(call, {known(bytes_tensor(kRgbPng))});
  EXPECT_EQ(known_out[0].shape.str(), Shape({2, 2, 3}).str());
  const std::vector<ops::Meta> open_out = infer_only(call, {meta(DType::kU8, Shape{69})});
  EXPECT_FALSE(open_out[0].shape[0].is_static());
  EXPECT_EQ(open_out[0].shape[2].value(), 3);
  const ops::Cost cost = cost_of(call, {known(bytes_tensor(kRgbPng))});
  EXPECT_EQ(cost.flops, 0);
  EXPECT_EQ(cost.bytes_written, 12);
}

TEST(ImageDecoder, BadInputsFail) {
  EXPECT_THROW(decode("II*\0 not really a tiff"sv, "RGB"), Error);
  EXPECT_THROW(decode("garbage bytes", "RGB"), Error);
  EXPECT_THROW(decode(kRgbPng.substr(0, 40), "RGB"), Error);  // truncated
  EXPECT_THROW(decode(kRgbPng, "YUV"), Error);
  OpCall call = op_call("ImageDecoder", 20);
  call.inputs = {Tensor::from<float>({2}, {1, 2})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
