// ConvInteger and QLinearConv (opset 10): Conv's computation on uint8/int8 operands.
//   ConvInteger(x, w, x_zero_point?, w_zero_point?) = conv(x - x_zp, w - w_zp) in int32.
//   QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B?) =
//     saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) · x_scale · w_scale / y_scale)
//              + y_zp), in y_zero_point's type; B is int32 in units of x_scale · w_scale.
// x's zero point and scale are per tensor; w's per tensor or per output channel. Conv's
// attributes (pads, strides, dilations, groups, auto_pad) apply as they do to Conv. The sums are
// exact (double holds every int32 sum of these products).
// Cost: Conv's multiply-accumulates; QLinearConv adds 3 FLOPs per output value (scale, round,
// add) and ConvInteger nothing beyond the products.
#include <string>

#include "ops/conv.h"
#include "ops/op.h"
#include "ops/reduce_util.h"
#include "ops/requantize.h"

namespace strata::ops {

namespace {

class QuantizedConvOp final : public Op {
 public:
  explicit QuantizedConvOp(const NodeInfo& node)
      : qlinear_(node.op_type() == "QLinearConv"), attrs_(node), conv_(attrs_) {}

  void infer(InferContext& ctx) const override {
    const size_t x = 0, w = weights();
    for (size_t i : {x, w})
      if (!is_8_bit(ctx.dtype(i)))
        fail("input {} has dtype {}; int8 or uint8 is needed", i, dtype_name(ctx.dtype(i)));
    for (auto [zp, operand] : {std::pair{x_zero_point(), x}, std::pair{w_zero_point(), w}})
      if (ctx.has_input(zp) && ctx.dtype(zp) != ctx.dtype(operand))
        fail("zero point {} has dtype {} but its operand has {}", zp, dtype_name(ctx.dtype(zp)),
             dtype_name(ctx.dtype(operand)));
    const Shape& xs = ctx.shape(x);
    const Shape& ws = ctx.shape(w);
    if (xs.rank() < 3 || ws.rank() != xs.rank())
      fail("x {} and w {} must have one rank of 3 or more", xs.str(), ws.str());
    const Shape out = conv_.output_shape(xs, ws);
    if (!qlinear_) return ctx.set_output(0, DType::kI32, out);
    for (size_t i : {size_t(1), size_t(4), size_t(6)})
      if (!is_float(ctx.dtype(i))) fail("scale {} has dtype {}", i, dtype_name(ctx.dtype(i)));
    if (!is_8_bit(ctx.dtype(7)))
      fail("y_zero_point has dtype {}; int8 or uint8 is needed", dtype_name(ctx.dtype(7)));
    if (ctx.has_input(8) && ctx.dtype(8) != DType::kI32)
      fail("B has dtype {}; int32 is needed", dtype_name(ctx.dtype(8)));
    ctx.set_output(0, ctx.dtype(7), out);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const double out_channels = double(ctx.input(weights()).shape[0].value());
    Cost c = data_movement_cost(ctx);
    c.macs = out_channels > 0 ? ctx.numel_out(0) * ctx.numel_in(weights()) / out_channels : 0;
    c.flops = 2 * c.macs + (qlinear_ ? 3 * ctx.numel_out(0) : 0);
    c.param_bytes = constant_input_bytes(ctx);
    return c;
  }

  bool is_qlinear() const { return qlinear_; }
  const ConvAttributes& attributes() const { return attrs_; }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(weights());
    const int64_t channels = w.dim(0);
    const std::vector<double> x_zp = zero_point(ctx, x_zero_point(), 1, "x_zero_point");
    const std::vector<double> w_zp = zero_point(ctx, w_zero_point(), channels, "w_zero_point");
    const Tensor xd = centred(x, x_zp, 1);
    const Tensor wd = centred(w, w_zp, channels > 0 ? w.numel() / channels : 0);  // 0: empty
    Tensor bias;
    if (qlinear_ && ctx.has_input(8)) {
      if (ctx.input(8).numel() != channels)
        fail("B holds {} values for {} output channels", ctx.input(8).numel(), channels);
      bias = Tensor::zeros(DType::kF64, {channels});
      const std::vector<double> b = ctx.input(8).to_double();
      std::copy(b.begin(), b.end(), bias.data<double>());
    }
    Tensor& y = ctx.output(0);
    Tensor sums = Tensor::zeros(DType::kF64, y.shape());
    conv_.run(xd, wd, bias.defined() ? &bias : nullptr, sums);
    const double* s = sums.data<double>();
    if (!qlinear_) {
      for (int64_t i = 0; i < y.numel(); ++i) y.data<int32_t>()[i] = int32_t(s[i]);
      return;
    }
    const std::vector<double> x_scale = ctx.input(1).to_double(),
                              w_scale = ctx.input(4).to_double(),
                              y_scale = ctx.input(6).to_double();
    check_scales(x_scale, "x_scale");
    check_scales(w_scale, "w_scale");
    check_scales(y_scale, "y_scale");
    if (x_scale.size() != 1 || y_scale.size() != 1)
      fail("x_scale and y_scale must be one value each (per tensor)");
    if (w_scale.size() != 1 && int64_t(w_scale.size()) != channels)
      fail("w_scale holds {} values; one or {} (per output channel) are needed", w_scale.size(),
           channels);
    const double y_zp = ctx.input(7).to_double()[0];
    const int64_t plane = y.numel() / (y.dim(0) * channels);
    visit_integer(y.dtype(), [&]<class Q>(Type<Q>) {
      for (int64_t i = 0; i < y.numel(); ++i) {
        const size_t m = w_scale.size() == 1 ? 0 : size_t((i / plane) % channels);
        const float multiplier = float(x_scale[0]) * float(w_scale[m]) / float(y_scale[0]);
        y.data<Q>()[i] = requantize<Q>(s[i], multiplier, y_zp);
      }
    });
  }

 private:
  size_t weights() const { return qlinear_ ? 3 : 1; }
  size_t x_zero_point() const { return 2; }
  size_t w_zero_point() const { return qlinear_ ? 5 : 3; }

  // The zero point's values (0 when omitted): one, or `per` (one per output channel).
  static std::vector<double> zero_point(const KernelContext& ctx, size_t i, int64_t per,
                                        const char* name) {
    if (!ctx.has_input(i)) return {0.0};
    std::vector<double> v = ctx.input(i).to_double();
    if (v.size() != 1 && int64_t(v.size()) != per)
      fail("{} holds {} values; one{} is needed", name, v.size(),
           per > 1 ? " or " + std::to_string(per) + " (per output channel)" : std::string());
    return v;
  }

  // t - zero point in double, the zero point per tensor or per block of `block` values.
  static Tensor centred(const Tensor& t, const std::vector<double>& zp, int64_t block) {
    Tensor out = Tensor::zeros(DType::kF64, t.shape());
    const std::vector<double> v = t.to_double();
    for (int64_t i = 0; i < t.numel(); ++i)
      out.data<double>()[i] = v[size_t(i)] - zp[zp.size() == 1 ? 0 : size_t(i / block)];
    return out;
  }

  bool qlinear_;
  ConvAttributes attrs_;
  mutable DirectConv conv_;  // holds a plan: the op runs on one thread of control at a time
};

}  // namespace

const ConvAttributes* qlinear_conv_attributes(const Op& op) {
  const auto* conv = dynamic_cast<const QuantizedConvOp*>(&op);
  return conv && conv->is_qlinear() ? &conv->attributes() : nullptr;
}

std::unique_ptr<Op> make_quantized_conv(const NodeInfo& node) {
  return std::make_unique<QuantizedConvOp>(node);
}

}  // namespace strata::ops
