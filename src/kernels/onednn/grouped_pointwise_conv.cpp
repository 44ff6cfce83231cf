// Grouped 1×1 convolutions (ShuffleNet's: 4 or 8 groups of 6 to 136 channels) as one oneDNN
// matmul per group over channels-last rows: group g's output channels are the rows X[:, g·K :
// (g+1)·K] (K input channels a group, read in place with a row stride of C) times that group's
// K × N weights, written in place into Y[:, g·N : (g+1)·N]. oneDNN 2.6's direct convolution runs
// them at 17-37 GFLOP/s on an AVX2 Zen 3, its GEMM matmul per group 1.3-3.9× faster (544 channels
// in 4 groups at 7×7: 0.37 → 0.10 ms; 24 → 112 channels in 4 groups at 56×56, with its ReLU:
// 0.99 → 0.27 ms). One matmul over all groups as a batch with these strides has only oneDNN's
// reference implementation, so the groups run one after the other, each on every thread.
// Bias, the residual Z (a sum post-op on Y's initial contents) and the activation are post-ops.
#include <algorithm>
#include <cstring>
#include <optional>

#include "core/memory_hint.h"
#include "kernels/kernel.h"
#include "kernels/onednn/conv_geometry.h"
#include "kernels/onednn/conv_setup.h"
#include "kernels/onednn/onednn.h"
#include "ops/fused_conv.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

Verdict grouped_pointwise_supports(const NodeRequest& r) {
  const std::optional<ConvSetup> setup = conv_setup_of(r.op);
  if (!setup) return Verdict::no("the op is not a convolution");
  const int64_t group = setup->attrs->group;
  if (group == 1) return Verdict::no("not grouped (one GEMM-shaped convolution already)");
  const ops::Meta& x = r.input(0);
  if (x.dtype != DType::kF32 || x.shape.rank() < 3 || x.shape.rank() > 5 || !x.shape.is_static())
    return Verdict::no("takes f32 inputs of static shape with 1 to 3 spatial axes");
  const ops::Meta& w = r.input(1);
  if (!w.value) return Verdict::no("the weights W are not constant (packed at prepare)");
  if (r.has_input(2) && !r.input(2).value) return Verdict::no("the bias B is not constant");
  if (w.value->shape()[1] == 1) return Verdict::no("depthwise (oneDNN's jit_dw takes it)");
  const OnednnConvGeometry geometry = onednn_conv_geometry(*setup->attrs, x.shape, w.shape);
  const auto all = [](const memory::dims& v, int64_t value) {
    return std::all_of(v.begin(), v.end(), [&](int64_t e) { return e == value; });
  };
  const std::vector<int64_t>& w_dims = geometry.w_dims;  // [g, M/g, C/g, 1...]
  if (!std::all_of(w_dims.begin() + 3, w_dims.end(), [](int64_t e) { return e == 1; }) ||
      !all(geometry.strides, 1) || !all(geometry.pads_begin, 0) || !all(geometry.pads_end, 0))
    return Verdict::no("not a 1×1 convolution of stride 1 without pads");
  // A plain output is written channels-last too (and converted for its readers), as oneDNN's
  // convolution does for grouped ones: one GEMM per group writing plain planes (a transposed
  // matmul) has only oneDNN 2.6's reference implementation.
  if (r.layout_policy == LayoutPolicy::kPlain)
    return Verdict::no("reads and writes channels-last rows; --layout plain asked for");
  dnnl::post_ops probe;
  if (!append_activation(probe, setup->activation))
    return Verdict::no("oneDNN has no post-op for the fused activation");
  return Verdict::yes(
      "grouped 1×1 convolution as one GEMM per group over channels-last rows (oneDNN's direct "
      "convolution runs these 1.3-3.9× slower on AVX2)");
}

class GroupedPointwiseKernel final : public Kernel {
 public:
  explicit GroupedPointwiseKernel(const NodeRequest& r) {
    const ConvSetup setup = *conv_setup_of(r.op);
    const std::vector<int64_t> x_shape = r.input(0).shape.values();
    const std::vector<int64_t> y_shape = r.output(0).shape.values();
    const int64_t group = setup.attrs->group, channels = x_shape[1], outputs = y_shape[1];
    const int64_t k = channels / group, n = outputs / group;
    int64_t rows = x_shape[0];
    for (size_t d = 2; d < x_shape.size(); ++d) rows *= x_shape[d];
    const bool has_bias = r.has_input(2);
    residual_ = r.has_input(ops::kFusedConvResidual);

    dnnl::primitive_attr attr = user_scratchpad_attr();
    dnnl::post_ops post_ops;
    if (residual_) post_ops.append_sum(1);  // Y holds Z when the kernel starts
    append_activation(post_ops, setup.activation);
    attr.set_post_ops(post_ops);
    // Group g's rows start g·k floats into X's and g·n into Y's; a row is C (M) floats long.
    const memory::desc src({rows, k}, memory::data_type::f32, memory::dims{channels, 1});
    const memory::desc dst({rows, n}, memory::data_type::f32, memory::dims{outputs, 1});
    const memory::desc w_any({k, n}, memory::data_type::f32, memory::format_tag::any);
    const memory::desc b_desc =
        has_bias ? memory::desc({1, n}, memory::data_type::f32, memory::format_tag::ab)
                 : memory::desc();
    const dnnl::matmul::desc desc(src, w_any, b_desc, dst);
    const dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
    if (is_reference(pd))
      fail("oneDNN has only its reference matmul for {} rows of {} → {} channels", rows, k, n);
    name_ = impl_name(pd) + ":per_group";

    // ONNX's weights [M, C/g, 1...]: group g's K × N matrix is rows g·n.. of M, read transposed.
    const Tensor& weights = *r.input(1).value;
    const memory::desc w_transposed({k, n}, memory::data_type::f32, memory::dims{1, k});
    if (has_bias) bias_ = r.input(2).value;
    const dnnl::matmul primitive(pd);
    for (int64_t g = 0; g < group; ++g) {
      Group& run = groups_.emplace_back();
      run.primitive = BoundPrimitive(primitive, pd.scratchpad_desc());
      run.primitive.add_fixed(DNNL_ARG_WEIGHTS, reorder_to(weights.data<float>() + g * n * k,
                                                           w_transposed, pd.weights_desc()));
      if (has_bias)
        run.primitive.add_fixed(
            DNNL_ARG_BIAS,
            memory(b_desc, cpu_engine(), const_cast<float*>(bias_->data<float>() + g * n)));
      run.src_slot = run.primitive.add_slot(DNNL_ARG_SRC, src);
      run.dst_slot = run.primitive.add_slot(DNNL_ARG_DST, dst);
    }
    release_resident_pages(weights.raw(), weights.nbytes());  // the run reads the packed copies
    k_ = k;
    n_ = n;
    dst_bytes_ = size_t(rows * outputs) * sizeof(float);
    packed_bytes_ = group * int64_t(pd.weights_desc().get_size());
    scratch_bytes_ = groups_.front().primitive.scratch_bytes();
    const Layout rows_layout = Layout::kChannelsLast;
    input_layouts_ = {rows_layout, Layout::kPlain, Layout::kPlain, rows_layout};
    output_layouts_ = {rows_layout};
    if (residual_) inplace_input_ = int(ops::kFusedConvResidual);
  }

  void run(const KernelArgs& args) override {
    const float* x = args.inputs[0]->data<float>();
    float* y = args.outputs[0]->data<float>();
    if (residual_) {  // the sum post-op adds what Y holds: Z, unless the session aliased them
      const void* z = args.inputs[ops::kFusedConvResidual]->raw();
      if (z != y) std::memcpy(y, z, dst_bytes_);
    }
    for (size_t g = 0; g < groups_.size(); ++g) {
      Group& run = groups_[g];
      run.primitive.set(run.src_slot, x + int64_t(g) * k_);
      run.primitive.set(run.dst_slot, y + int64_t(g) * n_);
      run.primitive.run(args.scratch);
    }
  }

 private:
  struct Group {
    BoundPrimitive primitive;
    int src_slot = -1, dst_slot = -1;
  };
  std::vector<Group> groups_;
  int64_t k_ = 0, n_ = 0;
  bool residual_ = false;
  size_t dst_bytes_ = 0;
  std::shared_ptr<const Tensor> bias_;
};

std::unique_ptr<Kernel> grouped_pointwise_prepare(const NodeRequest& r) {
  return std::make_unique<GroupedPointwiseKernel>(r);
}

}  // namespace

KernelFamily grouped_pointwise_conv_family() {
  return {"onednn_grouped_pointwise_conv", true, &is_f32_conv_op, &grouped_pointwise_supports,
          &grouped_pointwise_prepare,      false};
}

}  // namespace strata::kernels::onednn
