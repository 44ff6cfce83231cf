// QLinearConv through oneDNN's int8 convolution (VNNI dot products where the CPU has them): uint8
// or int8 X with its zero point, int8 weights packed once at prepare, int32 bias, and the
// requantization x_scale · w_scale / y_scale (per tensor or per output channel) and y's zero
// point as the primitive's attributes, so the int32 sums never leave the kernel; x's zero point
// folded into the bias where the window reads no padding (oneDNN's brgemm kernels take it then).
// What oneDNN 2.6 does not take stays on the reference kernel with the reason: uint8 or non-zero
// weight zero points (it subtracts none from the weights), scales or zero points that are not
// constants. The quantized-graph pass (src/passes/fuse_qdq.cpp) makes QLinearConv of
// DequantizeLinear → Conv → QuantizeLinear.
#include <cmath>
#include <optional>

#include "kernels/int8_products.h"
#include "kernels/kernel.h"
#include "kernels/onednn/conv_geometry.h"
#include "kernels/onednn/onednn.h"
#include "ops/conv.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

enum Input : size_t { kX, kXScale, kXZero, kW, kWScale, kWZero, kYScale, kYZero, kBias };

bool qlinear_conv_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "QLinearConv";
}

// A constant input's values as doubles, or nullopt when it is not a constant.
std::optional<std::vector<double>> constant_values(const NodeRequest& r, size_t i) {
  if (!r.has_input(i) || !r.input(i).value) return std::nullopt;
  return r.input(i).value->to_double();
}

Verdict qlinear_conv_supports(const NodeRequest& r) {
  if (!ops::qlinear_conv_attributes(r.op)) return Verdict::no("the op is not a QLinearConv");
  const ops::Meta& x = r.input(kX);
  if (!is_8_bit(x.dtype) || !is_8_bit(r.output(0).dtype))
    return Verdict::no("X and Y must be uint8 or int8");
  if (x.shape.rank() < 3 || x.shape.rank() > 5)
    return Verdict::no("oneDNN convolution takes 1 to 3 spatial axes");
  if (!r.input(kW).value) return Verdict::no("the weights W are not constant (packed at prepare)");
  if (r.input(kW).dtype != DType::kI8)
    return Verdict::no("oneDNN's int8 convolution takes int8 weights; W is uint8");
  for (size_t i : {kXScale, kWScale, kYScale})
    if (!r.input(i).value) return Verdict::no("a scale is not constant");
  for (size_t i : {kXZero, kYZero})
    if (r.has_input(i) && !r.input(i).value) return Verdict::no("a zero point is not constant");
  if (r.input(kXScale).value->numel() != 1 || r.input(kYScale).value->numel() != 1)
    return Verdict::no("x_scale and y_scale must be one value each");
  for (size_t i : {kXScale, kWScale, kYScale})
    for (double s : r.input(i).value->to_double())
      if (!(s > 0) || !std::isfinite(s))  // the reference kernel names the node and the scale
        return Verdict::no("a scale is not positive and finite");
  if (const auto w_zero = constant_values(r, kWZero))
    for (double z : *w_zero)
      if (z != 0)
        return Verdict::no("oneDNN 2.6 takes no weight zero points; w_zero_point is not 0");
  if (r.has_input(kWZero) && !r.input(kWZero).value)
    return Verdict::no("w_zero_point is not constant");
  if (r.has_input(kBias) && !r.input(kBias).value) return Verdict::no("the bias B is not constant");
  if (const std::string why = int8_product_problem(*r.input(kW).value, 0, x.dtype); !why.empty())
    return Verdict::no(why);
  return Verdict::yes("int8 convolution with constant weights, scales and zero points");
}

// One int32 zero point from a constant input (0 when omitted).
int32_t zero_point_of(const NodeRequest& r, size_t i) {
  const std::optional<std::vector<double>> v = constant_values(r, i);
  return v ? int32_t(v->at(0)) : 0;
}

// The bias with X's zero point folded in, where that is exact: Σ (x − z)·w + b = Σ x·w + (b −
// z·Σw) when every product reads an input value (no padding), and every sum and bias stays below
// 2^24 (float32 holds them exactly, however the kernel adds them). oneDNN 2.6 keeps a
// convolution with a source zero point off its brgemm kernels: on AMX, the older jit_1x1 kernel
// took 1.5–9 times as long for mobilenet_v2's 1×1 convolutions. nullopt where it does not fold.
std::optional<std::vector<int32_t>> bias_with_x_zero_point(const NodeRequest& r,
                                                           const OnednnConvGeometry& g,
                                                           int32_t x_zero) {
  for (size_t d = 0; d < g.pads_begin.size(); ++d)
    if (g.pads_begin[d] != 0 || g.pads_end[d] > 0) return std::nullopt;
  const Tensor& w = *r.input(kW).value;
  const int64_t outputs = w.shape()[0], per_output = w.numel() / outputs;
  const std::vector<double> bias =
      r.has_input(kBias) ? r.input(kBias).value->to_double() : std::vector<double>(outputs, 0.0);
  const double x_largest = r.input(kX).dtype == DType::kU8 ? 255 : 128;
  std::vector<int32_t> folded(static_cast<size_t>(outputs));
  for (int64_t m = 0; m < outputs; ++m) {
    int64_t sum = 0, magnitude = 0;
    for (int64_t i = 0; i < per_output; ++i) {
      const int64_t v = w.data<int8_t>()[m * per_output + i];
      sum += v;
      magnitude += v < 0 ? -v : v;
    }
    const double b = bias[size_t(m)] - double(x_zero) * double(sum);
    if (x_largest * double(magnitude) + std::abs(b) >= double(1 << 24)) return std::nullopt;
    folded[size_t(m)] = int32_t(b);
  }
  return folded;
}

class QLinearConvKernel final : public Kernel {
 public:
  explicit QLinearConvKernel(const NodeRequest& r) {
    const ops::ConvAttributes& attrs = *ops::qlinear_conv_attributes(r.op);
    const std::vector<int64_t> x_shape = r.input(kX).shape.values();
    const std::vector<int64_t> w_shape = r.input(kW).shape.values();
    const std::vector<int64_t> y_shape = r.output(0).shape.values();
    const OnednnConvGeometry g = onednn_conv_geometry(attrs, r.input(kX).shape, r.input(kW).shape);

    dnnl::primitive_attr attr = user_scratchpad_attr();
    set_requantization(attr, float(r.input(kXScale).value->to_double()[0]),
                       r.input(kWScale).value->to_double(),
                       float(r.input(kYScale).value->to_double()[0]), zero_point_of(r, kYZero));
    if (const int32_t x_zero = zero_point_of(r, kXZero)) {
      folded_bias_ = bias_with_x_zero_point(r, g, x_zero);
      if (!folded_bias_) attr.set_zero_points(DNNL_ARG_SRC, 0, {x_zero});
    }

    const memory::data_type x_type = *data_type_of(r.input(kX).dtype);
    const memory::data_type y_type = *data_type_of(r.output(0).dtype);
    const memory::desc w_any(memory::dims(g.w_dims.begin(), g.w_dims.end()), memory::data_type::s8,
                             memory::format_tag::any);
    const bool has_bias = r.has_input(kBias) || folded_bias_;
    const memory::desc b_desc =
        has_bias ? desc_of({w_shape[0]}, Layout::kPlain, memory::data_type::s32) : memory::desc();
    const auto make_pd = [&](Layout src_layout, Layout dst_layout) {
      const memory::desc src = desc_of(x_shape, src_layout, x_type);
      const memory::desc dst = desc_of(y_shape, dst_layout, y_type);
      const auto desc =
          has_bias ? dnnl::convolution_forward::desc(
                         dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                         src, w_any, b_desc, dst, g.strides, g.dilations, g.pads_begin, g.pads_end)
                   : dnnl::convolution_forward::desc(
                         dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                         src, w_any, dst, g.strides, g.dilations, g.pads_begin, g.pads_end);
      return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    };
    // oneDNN's int8 convolutions are written for channels-last data; plain (nchw) data has only
    // its reference implementation. A plain output is asked for only when the graph needs one.
    const Layout src_layout = Layout::kChannelsLast;
    Layout dst_layout = r.output_needs_plain[0] ? Layout::kPlain : Layout::kChannelsLast;
    dnnl::convolution_forward::primitive_desc pd = make_pd(src_layout, dst_layout);
    if (is_reference(pd) && dst_layout == Layout::kPlain) {
      note_ = "the output is written channels-last and made plain after (plain: only ref:any)";
      dst_layout = Layout::kChannelsLast;
      pd = make_pd(src_layout, dst_layout);
    }
    name_ = impl_name(pd);
    input_layouts_ = {src_layout};
    output_layouts_ = {dst_layout};
    primitive_ = BoundPrimitive(dnnl::convolution_forward(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, pd.src_desc());
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, pd.dst_desc());
    const Tensor& weights = *r.input(kW).value;
    primitive_.add_fixed(
        DNNL_ARG_WEIGHTS,
        reorder_to(weights.raw(), desc_of(g.w_dims, Layout::kPlain, memory::data_type::s8),
                   pd.weights_desc()));
    packed_bytes_ = int64_t(pd.weights_desc().get_size());
    if (folded_bias_) {
      primitive_.add_fixed(DNNL_ARG_BIAS, memory(b_desc, cpu_engine(), folded_bias_->data()));
      note_ += std::string(note_.empty() ? "" : "; ") + "x's zero point folded into the bias";
    } else if (has_bias) {
      bias_ = r.input(kBias).value;
      primitive_.add_fixed(DNNL_ARG_BIAS,
                           memory(b_desc, cpu_engine(), const_cast<void*>(bias_->raw())));
    }
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[kX]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
  std::shared_ptr<const Tensor> bias_;
  std::optional<std::vector<int32_t>> folded_bias_;  // B − x_zero_point · ΣW, where exact
};

std::unique_ptr<Kernel> qlinear_conv_prepare(const NodeRequest& r) {
  return std::make_unique<QLinearConvKernel>(r);
}

}  // namespace

KernelFamily qlinear_conv_family() {
  return {"onednn_qlinear_conv", true, &qlinear_conv_serves, &qlinear_conv_supports,
          &qlinear_conv_prepare, false};
}

}  // namespace strata::kernels::onednn
