// DeformConv (opset 19), 2-D: a convolution whose kernel taps are displaced by learned offsets.
//   X [N, C, H, W], W [oC, C / group, kH, kW], offset [N, offset_group · kH · kW · 2, oH, oW]
//   ordered (offset group, kh, kw, (dy, dx)), B [oC] (optional), mask [N, offset_group · kH · kW,
//   oH, oW] (optional, default 1).
// Tap (kh, kw) of output (oh, ow) reads X at (oh·stride - pad + kh·dilation + dy, likewise x),
// sampled bilinearly (positions outside the image read 0), times the mask; channel c uses
// offset group c / (C / offset_group). Attributes as Conv (dilations, group, kernel_shape, pads,
// strides) plus offset_group.
// Cost: Conv's MACs (2 FLOPs each, plus 1 per output for the bias) plus 8 FLOPs per sampled value
// (bilinear weights and sum) and 1 for the mask.
#include <cmath>

#include "ops/conv_geometry.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

class DeformConvOp final : public Op {
 public:
  explicit DeformConvOp(const NodeInfo& node)
      : attrs_(node),
        group_(node.attr_int("group", 1)),
        offset_group_(node.attr_int("offset_group", 1)) {
    if (group_ < 1) fail("attribute 'group' must be >= 1, got {}", group_);
    if (offset_group_ < 1) fail("attribute 'offset_group' must be >= 1, got {}", offset_group_);
    if (node.has_attr("auto_pad")) fail("attribute 'auto_pad' is not part of DeformConv");
  }

  void infer(InferContext& ctx) const override {
    const Meta& x = ctx.input(0);
    if (!is_float(x.dtype)) fail("does not support dtype {}", dtype_name(x.dtype));
    for (size_t i = 1; i < 5; ++i)
      if (ctx.has_input(i) && ctx.dtype(i) != x.dtype)
        fail("input {} is {}, but X is {}", i, dtype_name(ctx.dtype(i)), dtype_name(x.dtype));
    if (x.shape.rank() != 4)
      fail("strata implements 2-D DeformConv: X must be [N, C, H, W], got {}", x.shape.str());
    const Shape& w = ctx.shape(1);
    if (w.rank() != 4) fail("input 'W' must be [oC, C / group, kH, kW], got {}", w.str());
    const Geometry g = geometry(x.shape.values(), w.values());
    const Shape& offset = ctx.shape(2);
    const Shape expected_offset{x.shape[0], Dim(offset_group_ * g.taps * 2), Dim(g.out_h),
                                Dim(g.out_w)};
    if (!(offset == expected_offset))
      fail("input 'offset' of shape {} must be {}", offset.str(), expected_offset.str());
    if (ctx.has_input(3) && !(ctx.shape(3) == Shape{w[0]}))
      fail("input 'B' of shape {} must be [{}]", ctx.shape(3).str(), w[0].str());
    if (ctx.has_input(4)) {
      const Shape expected_mask{x.shape[0], Dim(offset_group_ * g.taps), Dim(g.out_h),
                                Dim(g.out_w)};
      if (!(ctx.shape(4) == expected_mask))
        fail("input 'mask' of shape {} must be {}", ctx.shape(4).str(), expected_mask.str());
    }
    ctx.set_output(0, x.dtype, Shape{x.shape[0], w[0], Dim(g.out_h), Dim(g.out_w)});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const auto& w = ctx.input(1).shape;
    const double taps = double(w[2].value() * w[3].value());
    const double macs = ctx.numel_out(0) * double(w[1].value()) * taps;
    Cost c = data_movement_cost(ctx);
    c.macs = macs;
    c.flops = 2 * macs + (ctx.has_input(3) ? ctx.numel_out(0) : 0);
    c.param_bytes = 0;
    for (size_t i : {1, 3})
      if (ctx.is_constant_input(i)) c.param_bytes += ctx.bytes_in(i);
    const auto& x = ctx.input(0).shape;
    const auto& y = ctx.output(0).shape;
    const double samples = double(x[0].value() * x[1].value() * y[2].value() * y[3].value()) * taps;
    c.flops += samples * (8 + (ctx.has_input(4) ? 1 : 0));
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Geometry g = geometry(x.shape(), w.shape());
    const int64_t batch = x.dim(0), channels = x.dim(1), height = x.dim(2), width = x.dim(3);
    const int64_t out_channels = w.dim(0), group_in = w.dim(1);
    const int64_t out_h = g.out_h, out_w = g.out_w, kh = g.window.kernel[0],
                  kw = g.window.kernel[1];
    const int64_t plane = out_h * out_w, channels_per_offset = channels / offset_group_;
    const int64_t out_per_group = out_channels / group_;
    visit_float(x.dtype(), [&]<class T>(Type<T>) {
      const T* src = x.data<T>();
      const T* weight = w.data<T>();
      const T* offset = ctx.input(2).data<T>();
      const T* bias = ctx.has_input(3) ? ctx.input(3).data<T>() : nullptr;
      const T* mask = ctx.has_input(4) ? ctx.input(4).data<T>() : nullptr;
      T* dst = ctx.output(0).data<T>();
      // Bilinear read of channel plane `in` at (y, x); zero outside.
      auto sample = [&](const T* in, double y, double xx) {
        if (y <= -1 || y >= double(height) || xx <= -1 || xx >= double(width)) return 0.0;
        const int64_t y0 = int64_t(std::floor(y)), x0 = int64_t(std::floor(xx));
        const double fy = y - double(y0), fx = xx - double(x0);
        auto at = [&](int64_t r, int64_t c) {
          return r >= 0 && r < height && c >= 0 && c < width ? double(in[r * width + c]) : 0.0;
        };
        return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1)) +
               fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1));
      };
      // columns[(c, tap), position]: the sampled, masked input of every tap.
      std::vector<double> columns(static_cast<size_t>(channels * g.taps * plane));
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t og = c / channels_per_offset;
          const T* in = src + (n * channels + c) * height * width;
          for (int64_t i = 0; i < kh; ++i)
            for (int64_t j = 0; j < kw; ++j) {
              const int64_t tap = i * kw + j;
              const T* dy = offset + ((n * offset_group_ + og) * g.taps + tap) * 2 * plane;
              const T* dx = dy + plane;
              const T* m =
                  mask ? mask + ((n * offset_group_ + og) * g.taps + tap) * plane : nullptr;
              for (int64_t oh = 0; oh < out_h; ++oh)
                for (int64_t ow = 0; ow < out_w; ++ow) {
                  const int64_t p = oh * out_w + ow;
                  const double y = double(oh * g.window.strides[0] - g.window.pads_begin[0] +
                                          i * g.window.dilations[0]) +
                                   double(dy[p]);
                  const double xx = double(ow * g.window.strides[1] - g.window.pads_begin[1] +
                                           j * g.window.dilations[1]) +
                                    double(dx[p]);
                  columns[size_t((c * g.taps + tap) * plane + p)] =
                      sample(in, y, xx) * (m ? double(m[p]) : 1.0);
                }
            }
        }
        for (int64_t oc = 0; oc < out_channels; ++oc) {
          const int64_t first_in = (oc / out_per_group) * group_in;
          for (int64_t p = 0; p < plane; ++p) {
            double acc = bias ? double(bias[oc]) : 0.0;
            for (int64_t ci = 0; ci < group_in; ++ci)
              for (int64_t tap = 0; tap < g.taps; ++tap)
                acc += double(weight[(oc * group_in + ci) * g.taps + tap]) *
                       columns[size_t(((first_in + ci) * g.taps + tap) * plane + p)];
            dst[(n * out_channels + oc) * plane + p] = from_acc<T>(acc);
          }
        }
      }
    });
  }

 private:
  struct Geometry {
    Window window;
    int64_t taps = 0, out_h = 0, out_w = 0;
  };

  Geometry geometry(const std::vector<int64_t>& x, const std::vector<int64_t>& w) const {
    if (x[1] % group_ != 0 || w[0] % group_ != 0 || w[1] * group_ != x[1])
      fail("channels: X has {}, W is [{}, {}, ...] for {} groups", x[1], w[0], w[1], group_);
    if (x[1] % offset_group_ != 0)
      fail("X's {} channels do not split into {} offset groups", x[1], offset_group_);
    Geometry g;
    g.window = attrs_.resolve(2, {w[2], w[3]});
    g.taps = w[2] * w[3];
    g.out_h = window_output_dim(g.window, 0, Dim(x[2])).value();
    g.out_w = window_output_dim(g.window, 1, Dim(x[3])).value();
    return g;
  }

  WindowAttrs attrs_;
  int64_t group_;
  int64_t offset_group_;
};

}  // namespace

std::unique_ptr<Op> make_deform_conv(const NodeInfo& node) {
  return std::make_unique<DeformConvOp>(node);
}

}  // namespace strata::ops
