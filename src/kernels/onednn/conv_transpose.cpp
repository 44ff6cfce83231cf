// ConvTranspose through oneDNN's deconvolution: f32, 1 to 3 spatial axes, groups, strides,
// dilations, pads (auto_pad, output_shape and output_padding as the op resolves them); bias
// fused. Weights are packed once at prepare; activations use the layout policy's format.
#include "ops/conv_transpose.h"

#include <numeric>

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool conv_transpose_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "ConvTranspose";
}

// oneDNN's view of the node: strides, dilations (gaps), pads at both ends. The end pads follow
// from the output size: out = (in - 1) * stride + extent - begin - end; an end pad below zero
// (output_padding, or an output_shape past the full result) extends the output, where oneDNN
// writes the bias alone, as the op does: by less than a stride (as output_padding may).
struct Deconvolution {
  memory::dims strides, dilations, pads_begin, pads_end;
  int64_t group = 1;
};

Deconvolution deconvolution_of(const NodeRequest& r) {
  const std::vector<int64_t> x = r.input(0).shape.values(), y = r.output(0).shape.values();
  const ops::ConvTransposeGeometry g =
      *ops::conv_transpose_geometry(r.op, x, r.input(1).shape.values(), y);
  Deconvolution d;
  d.group = g.group;
  for (size_t a = 0; a < g.window.rank(); ++a) {
    d.strides.push_back(g.window.strides[a]);
    d.dilations.push_back(g.window.dilations[a] - 1);
    d.pads_begin.push_back(g.window.pads_begin[a]);
    d.pads_end.push_back((x[a + 2] - 1) * g.window.strides[a] + g.window.extent(a) -
                         g.window.pads_begin[a] - y[a + 2]);
  }
  return d;
}

Verdict conv_transpose_supports(const NodeRequest& r) {
  const ops::Meta& x = r.input(0);
  if (x.dtype != DType::kF32)
    return Verdict::no("oneDNN deconvolution runs f32 here; X is " +
                       std::string(dtype_name(x.dtype)));
  if (x.shape.rank() < 3 || x.shape.rank() > 5)
    return Verdict::no("oneDNN deconvolution takes 1 to 3 spatial axes");
  if (!r.input(1).value) return Verdict::no("the weights W are not constant (packed at prepare)");
  if (r.has_input(2) && !r.input(2).value) return Verdict::no("the bias B is not constant");
  const Deconvolution d = deconvolution_of(r);
  for (size_t a = 0; a < d.pads_end.size(); ++a)
    if (d.pads_end[a] <= -d.strides[a])  // oneDNN builds no such deconvolution
      return Verdict::no(
          "the output extends past the full result by a stride or more (left at the bias)");
  return Verdict::yes("f32 transposed convolution with constant weights");
}

// ONNX's W is [C, M/group, k...]: oneDNN's weights (g, o, i, k...) with the input channel outer.
memory::desc onnx_weights_desc(const std::vector<int64_t>& w_shape, int64_t group) {
  const int64_t in_per_group = w_shape[0] / group, out_per_group = w_shape[1];
  const int64_t taps =
      std::accumulate(w_shape.begin() + 2, w_shape.end(), int64_t(1), std::multiplies<int64_t>());
  memory::dims dims, strides;
  if (group > 1) {
    dims.push_back(group);
    strides.push_back(in_per_group * out_per_group * taps);
  }
  dims.insert(dims.end(), {out_per_group, in_per_group});
  strides.insert(strides.end(), {taps, out_per_group * taps});
  int64_t step = taps;
  for (size_t a = 2; a < w_shape.size(); ++a) {
    dims.push_back(w_shape[a]);
    step /= w_shape[a];
    strides.push_back(step);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

class DeconvolutionKernel final : public SrcDstKernel {
 public:
  explicit DeconvolutionKernel(const NodeRequest& r) {
    const Deconvolution d = deconvolution_of(r);
    const std::vector<int64_t> x_shape = r.input(0).shape.values();
    const std::vector<int64_t> w_shape = r.input(1).shape.values();
    const std::vector<int64_t> y_shape = r.output(0).shape.values();
    const memory::desc w_plain = onnx_weights_desc(w_shape, d.group);
    const memory::desc w_any(w_plain.dims(), memory::data_type::f32, memory::format_tag::any);
    const bool has_bias = r.has_input(2);
    const memory::desc b_desc = has_bias ? desc_of({y_shape[1]}, Layout::kPlain) : memory::desc();

    // The input keeps a non-plain layout it arrives in; otherwise the policy's (plain for nchw).
    const Layout target = r.layout_policy == LayoutPolicy::kPlain ? Layout::kPlain
                          : r.layout_policy == LayoutPolicy::kChannelsLast
                              ? Layout::kChannelsLast
                              : native_blocked_layout();
    const Layout src_first = r.input_layouts[0] != Layout::kPlain ? r.input_layouts[0] : target;
    const Layout dst_first = r.output_needs_plain[0] ? Layout::kPlain : target;
    auto make_desc = [&](Layout src, Layout dst) {
      const memory::desc s = desc_of(x_shape, src), t = desc_of(y_shape, dst);
      return has_bias
                 ? dnnl::deconvolution_forward::desc(
                       dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, s,
                       w_any, b_desc, t, d.strides, d.dilations, d.pads_begin, d.pads_end)
                 : dnnl::deconvolution_forward::desc(
                       dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, s,
                       w_any, t, d.strides, d.dilations, d.pads_begin, d.pads_end);
    };
    // Plain throughout when the chosen layouts have only oneDNN's reference implementation.
    Layout src_layout = src_first, dst_layout = dst_first;
    {
      const dnnl::deconvolution_forward::desc first = make_desc(src_first, dst_first);
      const dnnl::deconvolution_forward::primitive_desc pd(first, user_scratchpad_attr(),
                                                           cpu_engine());
      if (is_reference(pd)) src_layout = dst_layout = Layout::kPlain;
    }
    // Built where its descriptor lives on: oneDNN's list of implementations refers to it.
    const dnnl::deconvolution_forward::desc desc = make_desc(src_layout, dst_layout);
    dnnl::deconvolution_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
    select_implementation(pd, r.implementation);

    input_layouts_ = {src_layout, Layout::kPlain, Layout::kPlain};
    output_layouts_ = {dst_layout};
    bind_src_dst(pd, dnnl::deconvolution_forward(pd), pd.src_desc(), pd.dst_desc());
    bias_ = bind_weights_and_bias(primitive(), r, w_plain, pd.weights_desc());
    packed_bytes_ = int64_t(pd.weights_desc().get_size());
  }

 private:
  std::shared_ptr<const Tensor> bias_;
};

std::unique_ptr<Kernel> conv_transpose_prepare(const NodeRequest& r) {
  return std::make_unique<DeconvolutionKernel>(r);
}

}  // namespace

KernelFamily conv_transpose_family() {
  return {"onednn_conv_transpose", true, &conv_transpose_serves, &conv_transpose_supports,
          &conv_transpose_prepare, true};
}

}  // namespace strata::kernels::onednn
