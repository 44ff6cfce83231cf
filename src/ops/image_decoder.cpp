// ImageDecoder (opset 20): decodes the encoded image in a 1-D uint8 tensor (PNG, JPEG, BMP, PGM or
// PPM, the formats src/io/image.cpp reads; JPEG 2000, TIFF and WebP are refused as unsupported)
// into uint8 [H, W, C] by attribute pixel_format: "RGB" (default) and "BGR" give C = 3 (a gray
// image's value repeated), "Grayscale" gives C = 1 (a color image's luma, ITU-R 601-2
// L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, the fixed-point form Pillow uses, which ONNX's
// reference runs). The output shape is known only from the bytes: decoded during shape inference
// when the input is a constant, else the step is planned as dynamic.
// Cost: 0 FLOPs (decoding is not counted as arithmetic); bytes as elementwise_cost.
#include <string_view>

#include "io/image.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

enum class PixelFormat { kRgb, kBgr, kGray };

PixelFormat pixel_format_of(const std::string& name) {
  if (name == "RGB") return PixelFormat::kRgb;
  if (name == "BGR") return PixelFormat::kBgr;
  if (name == "Grayscale") return PixelFormat::kGray;
  fail("attribute 'pixel_format' must be RGB, BGR or Grayscale, got '{}'", name);
}

class ImageDecoderOp final : public Op {
 public:
  explicit ImageDecoderOp(const NodeInfo& node)
      : format_(pixel_format_of(node.attr_string("pixel_format", "RGB"))) {}

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (x.dtype != DType::kU8) fail("input has dtype {}; uint8 is needed", dtype_name(x.dtype));
    if (x.shape.rank() != 1)
      fail("input must be 1-D (the encoded bytes), got rank {}", x.shape.rank());
    const Dim channels = format_ == PixelFormat::kGray ? 1 : 3;
    if (x.value) {
      const Tensor image = decode(*x.value);
      ctx.set_output(0, DType::kU8, Shape{image.dim(0), image.dim(1), channels});
    } else {
      ctx.set_output(0, DType::kU8, Shape{Dim::unknown(), Dim::unknown(), channels});
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor image = decode(ctx.input(0));
    Tensor& y = ctx.output(0);
    const int64_t pixels = image.dim(0) * image.dim(1), channels = image.dim(2);
    if (y.numel() != pixels * (format_ == PixelFormat::kGray ? 1 : 3))
      fail_internal("ImageDecoder output size differs from the decoded image");
    const uint8_t* in = image.data<uint8_t>();
    uint8_t* out = y.data<uint8_t>();
    for (int64_t p = 0; p < pixels; ++p) {
      const uint8_t* px = in + p * channels;
      const uint32_t r = px[0], g = px[channels == 3 ? 1 : 0], b = px[channels == 3 ? 2 : 0];
      switch (format_) {
        case PixelFormat::kGray:
          out[p] =
              channels == 1 ? px[0] : uint8_t((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
          break;
        case PixelFormat::kRgb:
          out[3 * p] = uint8_t(r), out[3 * p + 1] = uint8_t(g), out[3 * p + 2] = uint8_t(b);
          break;
        case PixelFormat::kBgr:
          out[3 * p] = uint8_t(b), out[3 * p + 1] = uint8_t(g), out[3 * p + 2] = uint8_t(r);
          break;
      }
    }
  }

 private:
  static Tensor decode(const Tensor& encoded) {
    const std::string_view bytes(static_cast<const char*>(encoded.raw()), size_t(encoded.numel()));
    if (bytes.starts_with(std::string_view("\0\0\0\x0cjP", 6)) || bytes.starts_with("II*") ||
        bytes.starts_with(std::string_view("MM\0*", 4)) || bytes.starts_with("RIFF"))
      fail("JPEG 2000, TIFF and WebP images are not supported (PNG, JPEG, BMP, PGM, PPM are)");
    try {
      return io::decode_image_hwc(bytes);
    } catch (const Error& e) {
      fail("input 'encoded_stream': {}", e.what());
    }
  }

  PixelFormat format_;
};

}  // namespace

std::unique_ptr<Op> make_image_decoder(const NodeInfo& node) {
  return std::make_unique<ImageDecoderOp>(node);
}

}  // namespace strata::ops
