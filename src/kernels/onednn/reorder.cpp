// Layout conversions at the boundaries between kernels that read different layouts.
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels {

namespace {

class ReorderKernel final : public Kernel {
 public:
  ReorderKernel(dnnl::memory::data_type type, const std::vector<int64_t>& shape, Layout from,
                Layout to) {
    const dnnl::memory::desc src = onednn::desc_of(shape, from, type);
    const dnnl::memory::desc dst = onednn::desc_of(shape, to, type);
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

}  // namespace

std::unique_ptr<Kernel> make_reorder(DType dtype, const std::vector<int64_t>& shape, Layout from,
                                     Layout to) {
  const std::optional<dnnl::memory::data_type> type = onednn::data_type_of(dtype);
  if (!type) fail_internal("no layout conversion for dtype {}", dtype_name(dtype));
  return std::make_unique<ReorderKernel>(*type, shape, from, to);
}

}  // namespace strata::kernels
