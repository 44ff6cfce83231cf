// MatMulInteger and QLinearMatMul through oneDNN's int8 matmul (VNNI where the CPU has it):
// uint8/int8 A times constant int8 B. MatMulInteger writes the int32 sums, the layout of
// dynamically quantized models (DynamicQuantizeLinear → MatMulInteger → Cast → Mul), with A's
// zero point given at run time (DynamicQuantizeLinear computes it per call). QLinearMatMul (which
// the quantized-graph pass makes of DequantizeLinear → MatMul → QuantizeLinear) requantizes them
// inside the primitive: a_scale · b_scale / y_scale, per tensor or per column of B, as output
// scales, y's zero point as the destination's. B's zero point must be 0, since oneDNN 2.6
// subtracts none from weights (the quantizers write symmetric int8 weights). strata's QLinearGemm
// adds its int32 bias to the sums before the requantization, as oneDNN 2.6 does with an s32 bias.
// strata's MatMulIntegerToFloat writes float32: the sums times its scale (a binary post-op whose
// operand is bound at every run: DynamicQuantizeLinear measures a new scale per call), plus its
// constant bias (a second binary post-op). Leading axes of A are rows of one 2-D product. Where
// oneDNN would not be exact (no VNNI), strata's int8 GEMM (src/kernels/cpu/int8_matmul.cpp) takes
// MatMulInteger and MatMulIntegerToFloat on AVX2; without AVX2 the reference kernel does.
#include <cmath>

#include "kernels/int8_matmul_operands.h"
#include "kernels/int8_products.h"
#include "kernels/kernel.h"
#include "kernels/onednn/onednn.h"
#include "ops/internal_ops.h"

namespace strata::kernels::onednn {

namespace {

using dnnl::memory;

Verdict matmul_integer_supports(const NodeRequest& r) {
  const Int8MatMulOperands o = int8_matmul_operands(r.node);
  const DType a = r.input(o.a).dtype;
  if (a != DType::kU8 && a != DType::kI8) return Verdict::no("A must be uint8 or int8");
  if (r.input(o.a).shape.rank() < 2) return Verdict::no("A has fewer than 2 axes");
  if (!r.input(o.b).value) return Verdict::no("B is not constant (packed at prepare)");
  if (r.input(o.b).dtype != DType::kI8)
    return Verdict::no("oneDNN's int8 matmul takes int8 weights; B is uint8");
  if (r.input(o.b).shape.rank() != 2) return Verdict::no("B is not 2-D");
  if (r.has_input(o.a_zero) && !is_one_value(r.input(o.a_zero).shape))
    return Verdict::no("a_zero_point is not one value (per row)");
  if (r.has_input(o.b_zero)) {
    if (!r.input(o.b_zero).value) return Verdict::no("b_zero_point is not constant");
    for (double z : r.input(o.b_zero).value->to_double())
      if (z != 0)
        return Verdict::no("oneDNN 2.6 takes no weight zero points; b_zero_point is not 0");
  }
  const std::string inexact = int8_product_problem(*r.input(o.b).value, 1, a);
  if (!inexact.empty()) return Verdict::no(inexact);
  if (o.to_float) {
    if (r.has_input(o.float_bias) && !r.input(o.float_bias).value)
      return Verdict::no("the bias is not constant");
    return Verdict::yes("int8 matmul with constant weights, float32 output scaled at every run");
  }
  if (!o.qlinear) return Verdict::yes("int8 matmul with constant weights");
  const std::string problem = int8_requantization_problem(r, o, r.input(o.b).shape.values()[1]);
  if (!problem.empty()) return Verdict::no(problem);
  return Verdict::yes("int8 matmul with constant weights, scales and output zero point");
}

class MatMulIntegerKernel final : public Kernel {
 public:
  explicit MatMulIntegerKernel(const NodeRequest& r) : o_(int8_matmul_operands(r.node)) {
    const std::vector<int64_t> a_shape = r.input(o_.a).shape.values();
    const int64_t k = a_shape.back(), n = r.input(o_.b).shape.values()[1];
    int64_t rows = 1;
    for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows *= a_shape[d];
    const memory::desc src = desc_of({rows, k}, Layout::kPlain, *data_type_of(r.input(o_.a).dtype));
    const memory::desc w_plain = desc_of({k, n}, Layout::kPlain, memory::data_type::s8);
    const memory::desc w_any({k, n}, memory::data_type::s8, memory::format_tag::any);
    const memory::desc dst = desc_of(
        {rows, n}, Layout::kPlain,
        o_.qlinear || o_.to_float ? *data_type_of(r.output(0).dtype) : memory::data_type::s32);
    dnnl::primitive_attr attr = user_scratchpad_attr();
    has_zero_point_ = r.has_input(o_.a_zero);
    if (has_zero_point_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (o_.qlinear) {
      set_requantization(attr, float(r.input(o_.a_scale).value->to_double()[0]),
                         r.input(o_.b_scale).value->to_double(),
                         float(r.input(o_.y_scale).value->to_double()[0]),
                         int32_t(r.input(o_.y_zero).value->to_double()[0]));
    }
    const int64_t scales = o_.to_float ? r.input(o_.float_scale).shape.numel().value() : 0;
    const bool has_float_bias = o_.to_float && r.has_input(o_.float_bias);
    if (o_.to_float) {
      // A binary multiply, not run-time output scales: those take oneDNN 2.6 off its brgemm
      // kernels (to gemm:jit, 20% slower on BERT's products).
      dnnl::post_ops post_ops;
      post_ops.append_binary(dnnl::algorithm::binary_mul, desc_of({1, scales}, Layout::kPlain));
      if (has_float_bias)
        post_ops.append_binary(dnnl::algorithm::binary_add, desc_of({1, n}, Layout::kPlain));
      attr.set_post_ops(post_ops);
    }
    const bool has_bias = o_.bias && r.has_input(o_.bias);
    const memory::desc bias =
        has_bias ? desc_of({1, n}, Layout::kPlain, memory::data_type::s32) : memory::desc();
    const dnnl::matmul::primitive_desc pd(
        has_bias ? dnnl::matmul::desc(src, w_any, bias, dst) : dnnl::matmul::desc(src, w_any, dst),
        attr, cpu_engine());
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
    const Tensor& b = *r.input(o_.b).value;
    primitive_.add_fixed(DNNL_ARG_WEIGHTS, reorder_to(b.raw(), w_plain, pd.weights_desc()));
    packed_bytes_ = int64_t(pd.weights_desc().get_size());
    if (has_bias) {
      bias_ = r.input(o_.bias).value;
      primitive_.add_fixed(DNNL_ARG_BIAS,
                           memory(bias, cpu_engine(), const_cast<void*>(bias_->raw())));
    }
    if (o_.to_float)
      scale_slot_ = primitive_.add_slot(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                                        desc_of({1, scales}, Layout::kPlain));
    if (has_float_bias) {
      bias_ = r.input(o_.float_bias).value;
      primitive_.add_fixed(
          DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1,
          memory(desc_of({1, n}, Layout::kPlain), cpu_engine(), const_cast<void*>(bias_->raw())));
    }
  }

  void run(const KernelArgs& args) override {
    if (has_zero_point_) {
      const Tensor& zp = *args.inputs[o_.a_zero];
      zero_point_ =
          zp.dtype() == DType::kU8 ? int32_t(zp.data<uint8_t>()[0]) : int32_t(zp.data<int8_t>()[0]);
    }
    if (o_.to_float) primitive_.set(scale_slot_, args.inputs[o_.float_scale]->raw());
    primitive_.set(src_slot_, args.inputs[o_.a]->raw());
    primitive_.set(dst_slot_, args.outputs[0]->raw());
    primitive_.run(args.scratch);
  }

 private:
  Int8MatMulOperands o_;
  BoundPrimitive primitive_;
  int src_slot_ = -1, dst_slot_ = -1, scale_slot_ = -1;
  bool has_zero_point_ = false;
  int32_t zero_point_ = 0;  // A's, read from its input at every run
  std::shared_ptr<const Tensor> bias_;
};

std::unique_ptr<Kernel> matmul_integer_prepare(const NodeRequest& r) {
  return std::make_unique<MatMulIntegerKernel>(r);
}

}  // namespace

KernelFamily matmul_integer_family() {
  return {"onednn_matmul_integer", false, &is_int8_matmul, &matmul_integer_supports,
          &matmul_integer_prepare, false};
}

}  // namespace strata::kernels::onednn
