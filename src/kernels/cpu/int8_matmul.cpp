// MatMulInteger, QLinearMatMul, and strata's MatMulIntegerToFloat (the dynamically quantized
// products) and QLinearGemm with strata's exact int8 GEMM (int8_gemm.h), where oneDNN's int8
// matmul would not be exact: a CPU without VNNI sums pairs of u8 × s8 products in 16 bits with
// saturation, which weights with two large values of one sign in a column overflow, and halves the
// weights for int8 activations. Elsewhere (VNNI, or weights that cannot saturate) oneDNN's kernel
// keeps the node. uint8 or int8 A with A's zero point read at every run (DynamicQuantizeLinear
// measures it per call), constant int8 B packed at prepare with its zero point (one value or one
// per column) subtracted. MatMulIntegerToFloat's output: float(sums) · scale + bias in float32, as
// the reference rounds. QLinearMatMul's and QLinearGemm's: the sums (plus QLinearGemm's int32
// bias) requantized as the reference does it (ops/requantize.h), so the results are equal.
#include <algorithm>
#include <cmath>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_matmul_operands.h"
#include "kernels/int8_products.h"
#include "kernels/kernel.h"
#include "ops/internal_ops.h"

namespace strata::kernels::cpu {

namespace {

Verdict int8_matmul_supports(const NodeRequest& r) {
  if (!int8_gemm_available())
    return Verdict::no("needs AVX2 (beyond this CPU or the SIMD ceiling)");
  const Int8MatMulOperands o = int8_matmul_operands(r.node);
  const DType a = r.input(o.a).dtype;
  if (a != DType::kU8 && a != DType::kI8) return Verdict::no("A must be uint8 or int8");
  if (r.input(o.a).shape.rank() < 1) return Verdict::no("A is a scalar");
  const ops::Meta& b = r.input(o.b);
  if (!b.value) return Verdict::no("B is not constant (packed at prepare)");
  if (const std::string problem = exact_int8_matmul_problem(*b.value, 1); !problem.empty())
    return Verdict::no(problem);
  if (r.has_input(o.a_zero) && !is_one_value(r.input(o.a_zero).shape))
    return Verdict::no("a_zero_point is not one value (per row)");
  bool b_zero = false;
  if (r.has_input(o.b_zero)) {
    const ops::Meta& z = r.input(o.b_zero);
    if (!z.value) return Verdict::no("b_zero_point is not constant");
    if (z.value->numel() != 1 && z.value->numel() != b.shape.values()[1])
      return Verdict::no("b_zero_point is neither one value nor one per column");
    for (double v : z.value->to_double()) b_zero |= v != 0;
  }
  if (o.qlinear) {
    const std::string problem = int8_requantization_problem(r, o, b.shape.values()[1]);
    if (!problem.empty()) return Verdict::no(problem);
  }
  std::string inexact = int8_product_problem(*b.value, 1, a);
  if (inexact.empty() && b_zero) inexact = "oneDNN 2.6 takes no weight zero points";
  if (inexact.empty())
    return Verdict::no("oneDNN's int8 matmul is exact for these weights on this CPU");
  return Verdict::yes(std::string("exact int8 GEMM (") + kInt8GemmMethod + "): " + inexact);
}

class Int8MatMulKernel final : public Kernel {
 public:
  explicit Int8MatMulKernel(const NodeRequest& r)
      : o_(int8_matmul_operands(r.node)),
        a_signed_(r.input(o_.a).dtype == DType::kI8),
        has_a_zero_(r.has_input(o_.a_zero)),
        has_bias_(o_.to_float && r.has_input(o_.float_bias)),
        threads_(std::max(1, r.threads)) {
    name_ = "cpu:int8_gemm:avx2";  // AVX2 code also where AVX-512 is there (no VNNI)
    const std::vector<int64_t> a_shape = r.input(o_.a).shape.values();
    const Tensor& b = *r.input(o_.b).value;
    const int64_t k = b.shape()[0], n = b.shape()[1];
    for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows_ *= a_shape[d];
    std::vector<int32_t> b_zero;
    if (r.has_input(o_.b_zero))
      for (int64_t v : r.input(o_.b_zero).value->to_int64()) b_zero.push_back(int32_t(v));
    gemm_ = Int8Gemm(b.data<int8_t>(), k, n, b_zero);
    packed_bytes_ = gemm_.packed_bytes();
    note_ = gemm_.method();
    scratch_bytes_ = gemm_.scratch_bytes(rows_, threads_);
    if (o_.to_float) scale_per_column_ = r.input(o_.float_scale).shape.numel().value() != 1;
    if (o_.qlinear) {
      const float a_scale = float(r.input(o_.a_scale).value->to_double()[0]);
      const float y_scale = float(r.input(o_.y_scale).value->to_double()[0]);
      std::vector<int32_t> bias;
      if (o_.bias && r.has_input(o_.bias))
        for (int64_t v : r.input(o_.bias).value->to_int64()) bias.push_back(int32_t(v));
      requantization_ = Int8RequantizationValues(
          int8_multipliers(a_scale, r.input(o_.b_scale).value->to_double(), y_scale, n), bias,
          int32_t(r.input(o_.y_zero).value->to_double()[0]), r.output(0).dtype == DType::kI8,
          double(k) * 255 * 255);
      // The int32 sums between the GEMM's passes, in scratch after the GEMM's own.
      sums_at_ = scratch_aligned(scratch_bytes_);
      scratch_bytes_ = sums_at_ + rows_ * n * int64_t(sizeof(int32_t));
    }
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_.assign(r.outputs.size(), Layout::kPlain);
  }

  std::string run_note() const override { return calls_.note(); }

  void run(const KernelArgs& args) override {
    int32_t a_zero = 0;
    if (has_a_zero_) {
      const Tensor& z = *args.inputs[o_.a_zero];
      a_zero = a_signed_ ? int32_t(z.data<int8_t>()[0]) : int32_t(z.data<uint8_t>()[0]);
    }
    Int8GemmFloatOutput float_output;
    if (o_.to_float) {
      float_output.scale = args.inputs[o_.float_scale]->data<float>();
      float_output.scale_per_column = scale_per_column_;
      float_output.bias = has_bias_ ? args.inputs[o_.float_bias]->data<float>() : nullptr;
    }
    if (o_.qlinear) {
      calls_.count(gemm_.multiply_requantized(args.inputs[o_.a]->raw(), a_signed_, a_zero, rows_,
                                              requantization_.get(), args.outputs[0]->raw(),
                                              static_cast<char*>(args.scratch) + sums_at_,
                                              args.scratch, threads_));
      return;
    }
    calls_.count(gemm_.multiply(args.inputs[o_.a]->raw(), a_signed_, a_zero, rows_,
                                args.outputs[0]->raw(), o_.to_float ? &float_output : nullptr,
                                args.scratch, threads_));
  }

 private:
  Int8MatMulOperands o_;
  bool a_signed_, has_a_zero_, has_bias_;
  bool scale_per_column_ = false;
  int threads_;
  int64_t rows_ = 1;
  Int8Gemm gemm_;
  Int8RequantizationValues requantization_;  // QLinear*'s
  Int8GemmCalls calls_;
  int64_t sums_at_ = 0;  // bytes into the scratch
};

std::unique_ptr<Kernel> int8_matmul_prepare(const NodeRequest& r) {
  return std::make_unique<Int8MatMulKernel>(r);
}

}  // namespace

KernelFamily int8_matmul_family() {
  return {"cpu_int8_matmul",    false, &is_int8_matmul, &int8_matmul_supports,
          &int8_matmul_prepare, false};
}

}  // namespace strata::kernels::cpu
