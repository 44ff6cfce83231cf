// MatMulInteger through oneDNN's int8 matmul (VNNI where the CPU has it): uint8/int8 A times
// constant int8 B into int32, the layout of dynamically quantized models (DynamicQuantizeLinear
// → MatMulInteger → Cast → Mul). A's zero point is given at run time (DynamicQuantizeLinear
// computes it per call); B's must be 0, since oneDNN 2.6 subtracts no zero point from weights
// (the quantizers write symmetric int8 weights). Leading axes of A are rows of one 2-D product.
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

enum Input : size_t { kA, kB, kAZero, kBZero };

bool serves(const ir::Node& node) {
  return node.domain.empty() && node.op_type == "MatMulInteger";
}

Verdict supports(const NodeRequest& r) {
  const DType a = r.input(kA).dtype;
  if (a != DType::kU8 && a != DType::kI8) return Verdict::no("A must be uint8 or int8");
  if (r.input(kA).shape.rank() < 2) return Verdict::no("A has fewer than 2 axes");
  if (!r.input(kB).value) return Verdict::no("B is not constant (packed at prepare)");
  if (r.input(kB).dtype != DType::kI8)
    return Verdict::no("oneDNN's int8 matmul takes int8 weights; B is uint8");
  if (r.input(kB).shape.rank() != 2) return Verdict::no("B is not 2-D");
  if (r.has_input(kAZero) && r.input(kAZero).shape.rank() > 0 &&
      !(r.input(kAZero).shape.rank() == 1 && r.input(kAZero).shape[0].value() == 1))
    return Verdict::no("a_zero_point is not one value (per row)");
  if (r.has_input(kBZero)) {
    if (!r.input(kBZero).value) return Verdict::no("b_zero_point is not constant");
    for (double z : r.input(kBZero).value->to_double())
      if (z != 0)
        return Verdict::no("oneDNN 2.6 takes no weight zero points; b_zero_point is not 0");
  }
  return Verdict::yes("int8 matmul with constant weights");
}

class MatMulIntegerKernel final : public Kernel {
 public:
  explicit MatMulIntegerKernel(const NodeRequest& r) {
    const std::vector<int64_t> a_shape = r.input(kA).shape.values();
    const int64_t k = a_shape.back(), n = r.input(kB).shape.values()[1];
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows *= a_shape[d];
    const memory::desc src = desc_of({rows, k}, Layout::kPlain, *data_type_of(r.input(kA).dtype));
    const memory::desc w_plain = desc_of({k, n}, Layout::kPlain, memory::data_type::s8);
    const memory::desc w_any({k, n}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc dst = desc_of({rows, n}, Layout::kPlain, memory::data_type::s32);
    dnnl::primitive_attr attr = user_scratchpad_attr();
    has_zero_point_ = r.has_input(kAZero);
    if (has_zero_point_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, w_any, dst), attr, cpu_engine());
    name_ = impl_name(pd);
    primitive_ = BoundPrimitive(dnnl::matmul(pd), pd.scratchpad_desc());
    scratch_bytes_ = primitive_.scratch_bytes();
    src_slot_ = primitive_.add_slot(DNNL_ARG_SRC, src);
    dst_slot_ = primitive_.add_slot(DNNL_ARG_DST, dst);
    if (has_zero_point_) {
      const int zp_slot = primitive_.add_slot(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                                              desc_of({1}, Layout::kPlain, memory::data_type::s32));
      primitive_.set(zp_slot, &zero_point_);
    }
    const Tensor& b = *r.input(kB).value;
    primitive_.add_fixed(DNNL_ARG_WEIGHTS, reorder_to(b.raw(), w_plain, pd.weights_desc()));
    packed_bytes_ = int64_t(pd.weights_desc().get_size());
  }

  void run(const KernelArgs& args) override {
    if (has_zero_point_) {
      const Tensor& zp = *args.inputs[kAZero];
      zero_point_ =
          zp.dtype() == DType::kU8 ? int32_t(zp.data<uint8_t>()[0]) : int32_t(zp.data<int8_t>()[0]);
    }
    primitive_.set(src_slot_, args.inputs[kA]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1;
  bool has_zero_point_ = false;
  int32_t zero_point_ = 0;  // A's, read from its input at every run
};

std::unique_ptr<Kernel> prepare(const NodeRequest& r) {
  return std::make_unique<MatMulIntegerKernel>(r);
}

}  // namespace

KernelFamily matmul_integer_family() {
  return {"onednn_matmul_integer", false, &serves, &supports, &prepare, false};
}

}  // namespace strata::kernels::onednn
