// Slice with constant starts/ends/axes/steps as one oneDNN reorder: the input is read through the
// window's strides (from the op, src/ops/slice.h) into the plain output.
#include "ops/slice.h"

#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

bool slice_serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Slice";
}

// The window, or nullopt when the slice bounds are known only while running.
std::optional<ops::SliceView> view_of(const NodeRequest& r) {
  std::vector<ops::Meta> out(1);
  ops::InferContext ctx(r.inputs, out);
  try {
    return ops::slice_view(r.op, ctx, r.input(0).shape.values());
  } catch (const NotStatic&) {
    return std::nullopt;
  }
}

Verdict slice_supports(const NodeRequest& r) {
  if (!data_type_of(r.input(0).dtype))
    return Verdict::no("oneDNN has no data type for " + std::string(dtype_name(r.input(0).dtype)));
  if (r.input(0).shape.rank() > 6) return Verdict::no("more than 6 dimensions");
  const std::optional<ops::SliceView> v = view_of(r);
  if (!v) return Verdict::no("the slice bounds are known only while running");
  for (int64_t stride : v->strides)
    if (stride < 0) return Verdict::no("a negative step");
  for (int64_t d : v->shape)
    if (d == 0) return Verdict::no("an empty slice");
  return Verdict::yes("a strided copy of the window");
}

class SliceKernel final : public Kernel {
 public:
  explicit SliceKernel(const NodeRequest& r) {
    const ops::SliceView v = *view_of(r);
    const memory::data_type type = *data_type_of(r.input(0).dtype);
    const memory::desc src(memory::dims(v.shape.begin(), v.shape.end()), type,
                           memory::dims(v.strides.begin(), v.strides.end()));
    const memory::desc dst = desc_of(v.shape, Layout::kPlain, type);
    const dnnl::reorder::primitive_desc pd(cpu_engine(), src, cpu_engine(), dst,
                                           user_scratchpad_attr());
    name_ = impl_name(pd);
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {Layout::kPlain};
    offset_bytes_ = v.offset * int64_t(dtype_size(r.input(0).dtype));
    primitive_ = BoundPrimitive(dnnl::reorder(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_FROM, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_TO, dst);
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, static_cast<const uint8_t*>(args.inputs[0]->raw()) + offset_bytes_);
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
  int64_t offset_bytes_ = 0;
};

std::unique_ptr<Kernel> slice_prepare(const NodeRequest& r) {
  return std::make_unique<SliceKernel>(r);
}

}  // namespace

KernelFamily slice_family() {
  return {"onednn_slice", false, &slice_serves, &slice_supports, &slice_prepare, false};
}

}  // namespace strata::kernels::onednn
