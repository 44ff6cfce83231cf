// Softmax, LogSoftmax and LayerNormalization through oneDNN (f32, plain layout). Softmax runs
// along its axis (before opset 13, over the axes from `axis` on, as one); LayerNormalization
// normalises the axes from `axis` on as one row, with constant Scale and B of that row's size.
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/layer_norm.h"
#include "ops/softmax.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

// dims split at `axis` into [outer, inner] (the product of each side).
memory::dims two_d(const std::vector<int64_t>& shape, int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d)
    (d < axis ? outer : inner) *= shape[size_t(d)];
  return {outer, inner};
}

Verdict f32_only(const NodeRequest& r, const char* what) {
  for (size_t i = 0; i < r.inputs.size(); ++i)
    if (r.has_input(i) && r.input(i).dtype != DType::kF32)
      return Verdict::no(std::string(what) + " runs f32 here; input " + std::to_string(i) + " is " +
                         std::string(dtype_name(r.input(i).dtype)));
  return Verdict::yes("");
}

// --- Softmax, LogSoftmax ---

bool softmax_serves(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "Softmax" || node.op_type == "LogSoftmax");
}

Verdict softmax_supports(const NodeRequest& r) {
  if (!ops::softmax_attributes(r.op)) return Verdict::no("the op is not a softmax");
  const Verdict types = f32_only(r, "oneDNN softmax");
  if (!types.ok) return types;
  if (r.input(0).shape.rank() == 0) return Verdict::no("a scalar input");
  return Verdict::yes("f32 softmax");
}

class SoftmaxKernel final : public SrcDstKernel {
 public:
  explicit SoftmaxKernel(const NodeRequest& r) {
    const ops::SoftmaxAttributes a = *ops::softmax_attributes(r.op);
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const int64_t rank = int64_t(shape.size());
    const int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
    memory::desc data;
    int softmax_axis = 0;
    if (a.coerce_2d) {
      data = memory::desc(two_d(shape, axis), memory::data_type::f32, memory::format_tag::ab);
      softmax_axis = 1;
    } else {
      data = desc_of(shape, Layout::kPlain);
      softmax_axis = int(axis);
    }
    if (a.log) {
      const dnnl::logsoftmax_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                                softmax_axis);
      dnnl::logsoftmax_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
      select_implementation(pd, r.implementation);
      bind_src_dst(pd, dnnl::logsoftmax_forward(pd), data, data);
    } else {
      const dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                             softmax_axis);
      dnnl::softmax_forward::primitive_desc pd(desc, user_scratchpad_attr(), cpu_engine());
      select_implementation(pd, r.implementation);
      bind_src_dst(pd, dnnl::softmax_forward(pd), data, data);
    }
  }
};

std::unique_ptr<Kernel> softmax_prepare(const NodeRequest& r) {
  return std::make_unique<SoftmaxKernel>(r);
}

// --- LayerNormalization ---

bool layer_norm_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "LayerNormalization";
}

Verdict layer_norm_supports(const NodeRequest& r) {
  const std::optional<ops::LayerNormAttributes> a = ops::layer_norm_attributes(r.op);
  if (!a) return Verdict::no("the op is not a layer normalisation");
  if (a->wants_statistics) return Verdict::no("the Mean or InvStdDev output is read");
  const Verdict types = f32_only(r, "oneDNN layer normalisation");
  if (!types.ok) return types;
  const std::vector<int64_t> shape = r.input(0).shape.values();
  const int64_t rank = int64_t(shape.size());
  if (rank == 0) return Verdict::no("a scalar: the reference kernel");  // no axis to index
  const int64_t axis = a->axis < 0 ? a->axis + rank : a->axis;
  const int64_t row = two_d(shape, axis)[1];
  for (size_t i : {size_t(1), size_t(2)}) {
    if (!r.has_input(i)) continue;
    if (!r.input(i).value) return Verdict::no("Scale or B is not constant");
    if (r.input(i).value->numel() != row)
      return Verdict::no("Scale or B broadcasts over the normalised axes");
  }
  return Verdict::yes("f32 layer normalisation");
}

class LayerNormKernel final : public Kernel {
 public:
  explicit LayerNormKernel(const NodeRequest& r) {
    const ops::LayerNormAttributes a = *ops::layer_norm_attributes(r.op);
    const std::vector<int64_t> shape = r.input(0).shape.values();
    const int64_t rank = int64_t(shape.size());
    const memory::dims dims = two_d(shape, a.axis < 0 ? a.axis + rank : a.axis);
    const memory::desc data(dims, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc param({dims[1]}, memory::data_type::f32, memory::format_tag::a);
    dnnl::normalization_flags flags = dnnl::normalization_flags::none;
    if (r.has_input(1)) flags |= dnnl::normalization_flags::use_scale;
    if (r.has_input(2)) flags |= dnnl::normalization_flags::use_shift;
    const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, data,
                                                       a.epsilon, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(desc, user_scratchpad_attr(),
                                                         cpu_engine());
    select_implementation(pd, r.implementation);
    name_ = impl_name(pd);
    primitive_ = BoundPrimitive(dnnl::layer_normalization_forward(pd), pd.scratchpad_desc());
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, data);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, data);
    for (size_t i : {size_t(1), size_t(2)}) {
      if (!r.has_input(i)) continue;
      params_.push_back(r.input(i).value);  // read in place: the constant outlives the session
      primitive_.add_fixed(i == 1 ? DNNL_ARG_SCALE : DNNL_ARG_SHIFT,
                           memory(param, cpu_engine(), const_cast<void*>(params_.back()->raw())));
    }
    // The statistics oneDNN computes per row go in the scratch memory after its own.
    const memory::desc stats = pd.mean_desc();
    stats_offset_ = scratch_aligned(primitive_.scratch_bytes());
    stats_bytes_ = scratch_aligned(int64_t(stats.get_size()));
    if (stats_bytes_ > 0) {
      mean_slot_ = primitive_.add_slot(DNNL_ARG_MEAN, stats);
      variance_slot_ = primitive_.add_slot(DNNL_ARG_VARIANCE, stats);
    }
    scratch_bytes_ = stats_offset_ + 2 * stats_bytes_;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    if (mean_slot_ >= 0) {
      uint8_t* scratch = static_cast<uint8_t*>(args.scratch);
      primitive_.set(mean_slot_, scratch + stats_offset_);
      primitive_.set(variance_slot_, scratch + stats_offset_ + stats_bytes_);
    }
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1, mean_slot_ = -1, variance_slot_ = -1;
  int64_t stats_offset_ = 0, stats_bytes_ = 0;
  std::vector<std::shared_ptr<const Tensor>> params_;
};

std::unique_ptr<Kernel> layer_norm_prepare(const NodeRequest& r) {
  return std::make_unique<LayerNormKernel>(r);
}

}  // namespace

KernelFamily softmax_family() {
  return {"onednn_softmax", false, &softmax_serves, &softmax_supports, &softmax_prepare, true};
}

KernelFamily layer_norm_family() {
  return {"onednn_layer_norm", false, &layer_norm_serves, &layer_norm_supports,
          &layer_norm_prepare, true};
}

}  // namespace strata::kernels::onednn
