// oneDNN's reorder: layout conversions at the boundaries between kernels that read different
// layouts, and Cast from integers to float32 (dynamically quantized models cast every int32
// product), where the reorder's rounding (to nearest even) is the cast's.
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels {

namespace {

class ReorderKernel final : public Kernel {
 public:
  ReorderKernel(dnnl::memory::data_type from_type, dnnl::memory::data_type to_type,
                const std::vector<int64_t>& shape, Layout from, Layout to) {
    const dnnl::memory::desc src = onednn::desc_of(shape, from, from_type);
    const dnnl::memory::desc dst = onednn::desc_of(shape, to, to_type);
    const dnnl::reorder::primitive_desc pd(onednn::cpu_engine(), src, onednn::cpu_engine(), dst,
                                           onednn::user_scratchpad_attr());
    name_ = onednn::impl_name(pd);
    input_layouts_ = {from};
    output_layouts_ = {to};
    primitive_ = onednn::BoundPrimitive(dnnl::reorder(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_FROM, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_TO, dst);
  }

  void run(const KernelArgs& args) override {
    primitive_.set(src_slot_, args.inputs[0]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  onednn::BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
};

bool serves_cast(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "Cast";
}

Verdict supports_cast(const NodeRequest& r) {
  const DType from = r.input(0).dtype, to = r.output(0).dtype;
  if (to != DType::kF32 || (from != DType::kI32 && from != DType::kI8 && from != DType::kU8))
    return Verdict::no(
        "int32, int8 or uint8 to float32 only (other casts truncate or saturate "
        "differently from oneDNN's reorder)");
  return Verdict::yes("integer to float32 conversion");
}

std::unique_ptr<Kernel> prepare_cast(const NodeRequest& r) {
  return std::make_unique<ReorderKernel>(*onednn::data_type_of(r.input(0).dtype),
                                         dnnl::memory::data_type::f32, r.input(0).shape.values(),
                                         Layout::kPlain, Layout::kPlain);
}

}  // namespace

namespace onednn {
KernelFamily cast_family() {
  return {"onednn_cast", false, &serves_cast, &supports_cast, &prepare_cast, false};
}
}  // namespace onednn

std::unique_ptr<Kernel> make_reorder(DType dtype, const std::vector<int64_t>& shape, Layout from,
                                     Layout to) {
  const std::optional<dnnl::memory::data_type> type = onednn::data_type_of(dtype);
  if (!type) fail_internal("no layout conversion for dtype {}", dtype_name(dtype));
  return std::make_unique<ReorderKernel>(*type, *type, shape, from, to);
}

}  // namespace strata::kernels
