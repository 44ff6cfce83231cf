// BatchNormalization in inference mode (and FusedBatchNorm, with the activation after it) through
// oneDNN's batch normalisation: f32, constant scale, B, mean and var of one value per channel, in
// whatever layout the input comes (DenseNet's normalisations read concatenations of blocked
// convolution outputs: a plain-only kernel would force conversions both ways around each of them).
#include "ops/batch_norm.h"

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/fused_batch_norm.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool batch_norm_serves(const ir::Node& node) {
  return (node.domain.empty() && node.op_type == "BatchNormalization") ||
         node.op_type == "FusedBatchNorm";
}

// The normalisation and the activation after it (none for a plain BatchNormalization).
std::optional<ops::FusedBatchNormAttributes> attributes_of(const ops::Op& op) {
  if (auto fused = ops::fused_batch_norm_attributes(op)) return fused;
  if (auto norm = ops::batch_norm_attributes(op)) return ops::FusedBatchNormAttributes{*norm, {}};
  return std::nullopt;
}

bool is_relu(const ops::Activation& a) {
  return a.kind == ops::ActivationKind::kRelu;
}

Verdict batch_norm_supports(const NodeRequest& r) {
  const std::optional<ops::FusedBatchNormAttributes> fused = attributes_of(r.op);
  if (!fused) return Verdict::no("the op is not a batch normalisation");
  const ops::BatchNormAttributes* a = &fused->norm;
  dnnl::post_ops probe;
  if (!append_activation(probe, fused->activation))
    return Verdict::no("oneDNN has no eltwise for the fused activation");
  if (!a->per_channel_inference)
    return Verdict::no("training mode, per-element statistics or statistics outputs");
  for (size_t i = 0; i < 5; ++i) {
    if (!r.has_input(i) || r.input(i).dtype != DType::kF32)
      return Verdict::no("oneDNN batch normalisation runs f32 here");
    if (i > 0 && !r.input(i).value) return Verdict::no("scale, B, mean or var is not constant");
  }
  const int64_t rank = r.input(0).shape.rank();
  if (rank < 2 || rank > 5) return Verdict::no("rank below 2 or above 5");
  return Verdict::yes("f32 batch normalisation with running statistics");
}

class BatchNormKernel final : public Kernel {
 public:
  explicit BatchNormKernel(const NodeRequest& r) {
    const ops::FusedBatchNormAttributes a = *attributes_of(r.op);
    const std::vector<int64_t> shape = r.input(0).shape.values();
    Layout layout = r.input_layouts[0];
    if (r.output_needs_plain[0] || !layout_fits(layout, int64_t(shape.size())))
      layout = Layout::kPlain;
    const memory::desc data = desc_of(shape, layout);
    const memory::desc param({shape[1]}, memory::data_type::f32, memory::format_tag::a);
    // ReLU is a flag of the primitive; other activations run after it, in place.
    dnnl::normalization_flags flags = dnnl::normalization_flags::use_global_stats |
                                      dnnl::normalization_flags::use_scale |
                                      dnnl::normalization_flags::use_shift;
    if (is_relu(a.activation)) flags |= dnnl::normalization_flags::fuse_norm_relu;
    const dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                                       a.norm.epsilon, flags);
    dnnl::batch_normalization_forward::primitive_desc pd(desc, user_scratchpad_attr(),
                                                         cpu_engine());
    select_implementation(pd, r.implementation);
    primitive_ = BoundPrimitive(dnnl::batch_normalization_forward(pd), pd.scratchpad_desc());
    if (a.activation.kind != ops::ActivationKind::kNone && !is_relu(a.activation))
      activation_ = InPlaceActivation(a.activation, data);
    name_ = impl_name(pd) + (activation_.empty() ? "" : "+" + activation_.name());
    scratch_bytes_ = std::max(primitive_.scratch_bytes(), activation_.scratch_bytes());
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, data);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, data);
    const int args[] = {DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
    for (size_t i = 1; i < 5; ++i) {
      params_.push_back(r.input(i).value);  // read in place: the constant outlives the session
      primitive_.add_fixed(args[i - 1],
                           memory(param, cpu_engine(), const_cast<void*>(params_.back()->raw())));
    }
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    input_layouts_[0] = layout;
    output_layouts_ = {layout};
    inplace_input_ = 0;
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
    if (!activation_.empty()) activation_.run(args.outputs[0]->raw(), args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  InPlaceActivation activation_;  // an activation other than ReLU, after the normalisation
  int src_slot_ = -1, dst_slot_ = -1;
  std::vector<std::shared_ptr<const Tensor>> params_;
};

std::unique_ptr<Kernel> batch_norm_prepare(const NodeRequest& r) {
  return std::make_unique<BatchNormKernel>(r);
}

}  // namespace

KernelFamily batch_norm_family() {
  return {"onednn_batch_norm", true, &batch_norm_serves, &batch_norm_supports,
          &batch_norm_prepare, true};
}

}  // namespace strata::kernels::onednn
