// Conv and FusedConv through oneDNN's convolution: f32, 1 to 3 spatial axes, groups (depthwise
// included), strides, dilations, asymmetric and automatic pads; bias, the residual Z (a sum
// post-op: the output buffer starts as Z, in place when the session lets Z's buffer be reused) and
// the activation (eltwise post-ops) are fused. Weights are packed once at prepare into
// the format the chosen implementation wants; activations use the layout policy's format.
#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>
#include <optional>

#include "kernels/cpu/silu.h"
#include "kernels/kernel.h"
#include "kernels/onednn/conv_geometry.h"
#include "kernels/onednn/conv_setup.h"
#include "kernels/onednn/onednn.h"
#include "kernels/onednn/version.h"
#include "ops/fused_conv.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

Verdict conv_supports(const NodeRequest& r) {
  const std::optional<ConvSetup> setup = conv_setup_of(r.op);
  if (!setup) return Verdict::no("the op is not a convolution");
  const ops::Meta& x = r.input(0);
  if (x.dtype != DType::kF32)
    return Verdict::no("oneDNN convolution runs f32 here; X is " +
                       std::string(dtype_name(x.dtype)));
  if (x.shape.rank() < 3 || x.shape.rank() > 5)
    return Verdict::no("oneDNN convolution takes 1 to 3 spatial axes");
  if (!r.input(1).value) return Verdict::no("the weights W are not constant (packed at prepare)");
  if (r.has_input(2) && !r.input(2).value) return Verdict::no("the bias B is not constant");
  dnnl::post_ops probe;
  if (!append_activation(probe, setup->activation))
    return Verdict::no("oneDNN has no post-op for the fused activation");
  return Verdict::yes("f32 convolution with constant weights");
}

// Where Winograd's algorithm is tried for a convolution: first (it pays), first with oneDNN's
// 4×4-tile implementation before its 2×2-tile one (large tiles pay), after the direct
// implementations (fast-run only), or never (oneDNN 2.6 has it for 3×3, stride 1, undilated,
// ungrouped 2-D convolutions in blocked layouts only).
enum class WinogradUse { kNever, kFastRunOnly, kPays, kLargeTilesPay };

// Measured on resnet50 (one thread, AVX-512, batch 1): every 3×3 convolution with 64 to 512
// channels in and out ran 1.3-2.1× faster with Winograd than with the direct `jit`
// implementation, outputs 1.5e-5 of their scale from a float64 reference (direct: 1.3e-5). But
// oneDNN 2.6 transforms the weights slowly at prepare (about 35 ms per 512-channel layer) into
// 1.8-4× their size, and the widest layers gain least (1.3×): with 64 to 256 channels resnet50
// kept nearly all the gain (80 → 69 ms) for +80 ms of prepare instead of +190. The rest is left
// to fast-run, which times both.
constexpr int64_t kWinogradMinChannels = 64, kWinogradMaxChannels = 256;

// oneDNN lists its 2×2-tile Winograd (F(2,3), `jit_fp32_wino_2x3`) before its 4×4-tile one
// (F(4,3), `jit_wino_4x3`: 4× fewer multiplications than direct against 2.25×, weights
// transformed to 2.25× the 2×2's size). On large images the 4×4 tiles pay: on a Sapphire Rapids
// at 1 thread, inception_v3's 80 → 192 layer on 71×71 ran 5.4 → 3.4 ms, resnet50's 64-channel
// 56×56 layers 0.70 → 0.55, DenseNet's 128 → 32 on 56×56 (direct before: too few outputs for
// the 2×2 tiles) 1.26 → 0.66; below 32×32 outputs, or with fewer than 64 inputs, they did not
// (resnet50 with them on 28×28 and 14×14: 2-4% slower in all, its larger transformed weights
// read from memory each run).
constexpr int64_t kLargeTilesMinOutputs = 32 * 32, kLargeTilesMinInputs = 64,
                  kLargeTilesMinChannelsOut = 32;

WinogradUse winograd_use(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                         int64_t group, const memory::dims& strides,
                         const memory::dims& dilations) {
  const bool shape_fits = x_shape.size() == 4 && group == 1 && w_shape[2] == 3 && w_shape[3] == 3 &&
                          strides == memory::dims{1, 1} && dilations == memory::dims{0, 0};
  if (!shape_fits) return WinogradUse::kNever;
  const int64_t inputs = x_shape[1], outputs = w_shape[0];
  const int64_t out_pixels = (x_shape[2] - 2) * (x_shape[3] - 2);  // unpadded: the fewest
  if (out_pixels >= kLargeTilesMinOutputs && inputs >= kLargeTilesMinInputs &&
      inputs <= kWinogradMaxChannels && outputs >= kLargeTilesMinChannelsOut &&
      outputs <= kWinogradMaxChannels)
    return WinogradUse::kLargeTilesPay;
  auto pays = [](int64_t channels) {
    return channels >= kWinogradMinChannels && channels <= kWinogradMaxChannels;
  };
  return pays(inputs) && pays(outputs) ? WinogradUse::kPays : WinogradUse::kFastRunOnly;
}

// How many implementations oneDNN lists for a convolution descriptor (a dozen at most; the bound
// guards against a list that never ends).
int implementation_count(const dnnl::convolution_forward::desc& desc,
                         const dnnl::primitive_attr& attr) {
  constexpr int kLongestList = 64;
  const PrimitiveCachePause pause;  // the list is only the list without the cache (version.h)
  dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
  int count = 1;
  while (count < kLongestList && pd.next_impl()) ++count;
  return count;
}

// Whether oneDNN lists its 4×4-tile Winograd second, after the 2×2 one (AVX-512 CPUs).
bool lists_large_tiles_second(const dnnl::convolution_forward::desc& desc,
                              const dnnl::primitive_attr& attr) {
  const PrimitiveCachePause pause;  // the list is only the list without the cache (version.h)
  dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
  return pd.next_impl() && std::string(pd.impl_info_str()).find("wino_4x3") != std::string::npos;
}

// An implementation oneDNN offers for a convolution, and where it is in the lists.
struct ConvImplementation {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::algorithm algorithm;
  int index;  // in that algorithm's list
};

// Implementation number `index` through the lists of the convolution's algorithms one after the
// other, the one that pays first (Winograd where `winograd` says so, else the direct
// algorithm); NoSuchImplementation past the last. `make_desc` builds the descriptor of an
// algorithm: oneDNN's list refers to it while it is walked, so each lives here until then.
ConvImplementation pick_implementation(
    const std::function<dnnl::convolution_forward::desc(dnnl::algorithm)>& make_desc,
    const dnnl::primitive_attr& attr, WinogradUse winograd, int index) {
  using dnnl::algorithm;
  const bool large_tiles = winograd == WinogradUse::kLargeTilesPay;
  const bool winograd_first = winograd == WinogradUse::kPays || large_tiles;
  const algorithm order[] = {
      winograd_first ? algorithm::convolution_winograd : algorithm::convolution_direct,
      winograd_first ? algorithm::convolution_direct : algorithm::convolution_winograd};
  for (const algorithm a : order) {
    const bool is_winograd = a == algorithm::convolution_winograd;
    if (is_winograd && winograd == WinogradUse::kNever) continue;
    const dnnl::convolution_forward::desc desc = make_desc(a);
    dnnl::convolution_forward::primitive_desc pd;
    try {
      pd = dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
    } catch (const dnnl::error&) {
      if (is_winograd) continue;  // not offered for these layouts, post-ops or this CPU
      throw;
    }
    const bool swap =
        is_winograd && large_tiles && index < 2 && lists_large_tiles_second(desc, attr);
    const int count = index == 0 && !swap ? 1 : implementation_count(desc, attr);
    if (index < count) {
      const int listed = swap ? 1 - index : index;  // the 4×4 tiles first
      select_implementation(pd, listed);
      return {pd, a, listed};
    }
    index -= count;
  }
  throw NoSuchImplementation();
}

// Whether oneDNN picked one of its GEMM-based convolutions ("x64:gemm:jit").
bool is_gemm(const dnnl::primitive_desc_base& pd) {
  const std::string name = ":" + std::string(pd.impl_info_str()) + ":";
  return name.find(":gemm:") != std::string::npos;
}

memory::dims dims_of(const std::vector<int64_t>& v) {
  return memory::dims(v.begin(), v.end());
}

// A convolution descriptor from the source and destination descriptors and the algorithm (the
// other operands fixed by the node).
using MakeConvDesc = std::function<dnnl::convolution_forward::desc(
    const memory::desc& src, const memory::desc& dst, dnnl::algorithm algorithm)>;

// The layouts the convolution reads its input and writes its output in.
std::pair<Layout, Layout> settle_layouts(const NodeRequest& r, const MakeConvDesc& make_desc,
                                         const dnnl::primitive_attr& attr,
                                         const std::vector<int64_t>& x_shape,
                                         const std::vector<int64_t>& y_shape) {
  // Activation layouts: the input keeps the layout it has when it is not plain (no reorder
  // between convolutions); otherwise the policy decides, and `any` lets oneDNN choose.
  const Layout x_layout = r.input_layouts[0];
  const memory::desc any_x(dims_of(x_shape), memory::data_type::f32, memory::format_tag::any);
  const memory::desc any_y(dims_of(y_shape), memory::data_type::f32, memory::format_tag::any);
  memory::desc src, dst;
  switch (r.layout_policy) {
    case LayoutPolicy::kPlain:
      src = desc_of(x_shape, Layout::kPlain);
      dst = desc_of(y_shape, Layout::kPlain);
      break;
    case LayoutPolicy::kChannelsLast:
    case LayoutPolicy::kBlocked: {
      const Layout target = r.layout_policy == LayoutPolicy::kBlocked ? native_blocked_layout()
                                                                      : Layout::kChannelsLast;
      src = x_layout == Layout::kPlain ? any_x : desc_of(x_shape, x_layout);
      dst = desc_of(y_shape, target);
      break;
    }
    case LayoutPolicy::kAuto:
      src = x_layout == Layout::kPlain ? any_x : desc_of(x_shape, x_layout);
      dst = any_y;
      break;
  }
  if (r.output_needs_plain[0]) dst = desc_of(y_shape, Layout::kPlain);

  const auto preferred = [&](const memory::desc& s, const memory::desc& d) {
    const dnnl::convolution_forward::desc desc =
        make_desc(s, d, dnnl::algorithm::convolution_direct);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    return std::make_pair(layout_of(pd.src_desc()), layout_of(pd.dst_desc()));
  };
  // Formats left open (`any`) are fixed by a first choice; layouts strata does not model
  // (nChw4c...) are replaced by the policy's explicit ones.
  const Layout fallback =
      r.layout_policy == LayoutPolicy::kBlocked ? native_blocked_layout() : Layout::kChannelsLast;
  const auto [first_src, first_dst] = preferred(src, dst);
  // Candidates, best first: the policy's layouts; the input's layout for the output too (when a
  // plain output has only oneDNN's reference implementation); channels-last throughout (grouped
  // convolutions with fewer than 16 channels a group have no blocked implementation, and in nhwc
  // run 4x faster than oneDNN's GEMM-based one in plain layouts: regnet's); plain throughout.
  const Layout settled_src = first_src.value_or(fallback);
  const std::pair<Layout, Layout> candidates[] = {{settled_src, first_dst.value_or(fallback)},
                                                  {settled_src, settled_src},
                                                  {Layout::kChannelsLast, Layout::kChannelsLast},
                                                  {Layout::kPlain, Layout::kPlain}};
  for (size_t c = 0; c < std::size(candidates); ++c) {
    const auto [s, d] = candidates[c];
    const dnnl::convolution_forward::desc desc =
        make_desc(desc_of(x_shape, s), desc_of(y_shape, d), dnnl::algorithm::convolution_direct);
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());
    if (!is_reference(pd)) return candidates[c];
  }
  return candidates[0];  // only oneDNN's reference everywhere: the policy's layouts
}

// Attributes with the residual's sum post-op alone (a fresh attribute: oneDNN 2.6 keeps the old
// post-ops when given an empty list).
dnnl::primitive_attr sum_only_attr(bool residual) {
  dnnl::primitive_attr attr = user_scratchpad_attr();
  if (residual) {
    dnnl::post_ops sum;
    sum.append_sum(1);
    attr.set_post_ops(sum);
  }
  return attr;
}

class ConvKernel final : public Kernel {
 public:
  explicit ConvKernel(const NodeRequest& r) {
    const ConvSetup setup = *conv_setup_of(r.op);
    const std::vector<int64_t> x_shape = r.input(0).shape.values();
    const std::vector<int64_t> w_shape = r.input(1).shape.values();
    const std::vector<int64_t> y_shape = r.output(0).shape.values();
    const OnednnConvGeometry geometry =
        onednn_conv_geometry(*setup.attrs, r.input(0).shape, r.input(1).shape);
    const memory::dims &strides = geometry.strides, &dilations = geometry.dilations,
                       &pads_begin = geometry.pads_begin, &pads_end = geometry.pads_end;
    const int64_t group = setup.attrs->group;
    const std::vector<int64_t>& w_dims = geometry.w_dims;
    const memory::desc w_plain = desc_of(w_dims, Layout::kPlain);
    const memory::desc w_any(dims_of(w_dims), memory::data_type::f32, memory::format_tag::any);
    const bool has_bias = r.has_input(2);
    const memory::desc b_desc = has_bias ? desc_of({w_shape[0]}, Layout::kPlain) : memory::desc();
    const bool residual = r.has_input(ops::kFusedConvResidual);

    // oneDNN 2.6's swish post-op costs about 0.4 ns per element on this AVX-512 machine, strata's
    // own SiLU pass over the output just written about 0.2 (efficientnet_b0's 16→96 1×1
    // convolution at 112×112: 0.95 ms fused, 0.45 + 0.22 apart): SiLU runs after the convolution.
    silu_after_ = setup.activation.kind == ops::ActivationKind::kSilu && cpu::silu_is_vectorised();
    dnnl::primitive_attr attr = sum_only_attr(residual);  // dst holds Z when the kernel starts
    if (!silu_after_) {
      dnnl::post_ops post_ops;
      if (residual) post_ops.append_sum(1);
      append_activation(post_ops, setup.activation);
      attr.set_post_ops(post_ops);
    }
    const MakeConvDesc make_desc = [&](const memory::desc& s, const memory::desc& d,
                                       dnnl::algorithm algorithm) {
      return has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                        algorithm, s, w_any, b_desc, d, strides,
                                                        dilations, pads_begin, pads_end)
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                        algorithm, s, w_any, d, strides, dilations,
                                                        pads_begin, pads_end);
    };
    const auto [src_layout, dst_layout] = settle_layouts(r, make_desc, attr, x_shape, y_shape);
    const memory::desc src_settled = desc_of(x_shape, src_layout);
    const memory::desc dst_settled = desc_of(y_shape, dst_layout);
    const auto settled_desc = [&](dnnl::algorithm algorithm) {
      return make_desc(src_settled, dst_settled, algorithm);
    };
    const ConvImplementation picked = pick_implementation(
        settled_desc, attr, winograd_use(x_shape, w_shape, group, strides, dilations),
        r.implementation);
    dnnl::convolution_forward::primitive_desc pd = picked.pd;
    if (setup.activation.kind != ops::ActivationKind::kNone && !silu_after_ && is_gemm(pd)) {
      // oneDNN 2.6's GEMM-based convolution applies eltwise post-ops one element at a time
      // through its reference code, in plain layouts (a fused ReLU made a 1×1 convolution 7×
      // slower, a SiLU 20×) and channels-last ones (a grouped 1×1 convolution of 6 channels a
      // group, the Caffe2 ShuffleNet's first: 0.80 ms against 0.19 on an AVX2 Zen 3): there the
      // activation runs after it as its own vectorised primitive, in place.
      const dnnl::convolution_forward::desc desc = settled_desc(picked.algorithm);
      pd = dnnl::convolution_forward::primitive_desc(desc, sum_only_attr(residual), cpu_engine());
      select_implementation(pd, picked.index);
      activation_ = InPlaceActivation(setup.activation, pd.dst_desc());
    }
    const memory::desc src = pd.src_desc(), dst = pd.dst_desc();
    name_ = impl_name(pd) + (activation_.empty() ? "" : "+" + activation_.name()) +
            (silu_after_ ? "+silu:strata" : "");
    input_layouts_ = {src_layout, Layout::kPlain, Layout::kPlain, dst_layout};
    output_layouts_ = {dst_layout};
    dst_bytes_ = dst.get_size();
    primitive_ = BoundPrimitive(dnnl::convolution_forward(pd), pd.scratchpad_desc());
    scratch_bytes_ = std::max(primitive_.scratch_bytes(), activation_.scratch_bytes());
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, dst);
    residual_ = residual;
    if (residual) inplace_input_ = int(ops::kFusedConvResidual);
    bias_ = bind_weights_and_bias(primitive_, r, w_plain, pd.weights_desc());
    packed_bytes_ = int64_t(pd.weights_desc().get_size());
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    if (residual_) {  // the sum post-op adds what dst holds: Z, unless the session aliased them
      const void* z = args.inputs[ops::kFusedConvResidual]->raw();
      if (z != args.outputs[0]->raw()) std::memcpy(args.outputs[0]->raw(), z, dst_bytes_);
    }
    primitive_.run(args.scratch);
    if (!activation_.empty()) activation_.run(args.outputs[0]->raw(), args.scratch);
    if (silu_after_)  // padding channels of a blocked layout hold zeros: SiLU keeps them zero
      cpu::silu_in_place(args.outputs[0]->data<float>(), int64_t(dst_bytes_ / sizeof(float)));
  }

 private:
  BoundPrimitive primitive_;
  InPlaceActivation activation_;  // the activation, when not fused as post-ops
  bool silu_after_ = false;       // SiLU by strata's own pass after the convolution
  int src_slot_ = -1, dst_slot_ = -1;
  bool residual_ = false;
  size_t dst_bytes_ = 0;
  std::shared_ptr<const Tensor> bias_;
};

std::unique_ptr<Kernel> conv_prepare(const NodeRequest& r) {
  return std::make_unique<ConvKernel>(r);
}

}  // namespace

KernelFamily conv_family() {
  return {"onednn_conv", true, &is_f32_conv_op, &conv_supports, &conv_prepare, true};
}

}  // namespace strata::kernels::onednn
