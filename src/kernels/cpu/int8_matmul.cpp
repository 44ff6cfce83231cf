// MatMulInteger and strata's MatMulIntegerToFloat (the dynamically quantized products) with
// strata's exact int8 GEMM (int8_gemm.h), where oneDNN's int8 matmul would not be exact: a CPU
// without VNNI sums pairs of u8 × s8 products in 16 bits with saturation, which weights with two
// large values of one sign in a column overflow, and halves the weights for int8 activations.
// Elsewhere (VNNI, or weights that cannot saturate) oneDNN's kernel keeps the node. uint8 or int8
// A with A's zero point read at every run (DynamicQuantizeLinear measures it per call), constant
// int8 B packed at prepare with its zero point (one value or one per column) subtracted.
// MatMulIntegerToFloat's output: float(sums) · scale + bias in float32, as the reference rounds.
#include <algorithm>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_products.h"
#include "kernels/kernel.h"
#include "ops/internal_ops.h"

namespace strata::kernels::cpu {

namespace {

// MatMulInteger's and MatMulIntegerToFloat's inputs: A, B, A's zero point, B's zero point, then
// MatMulIntegerToFloat's scale and bias.
constexpr size_t kInt8A = 0, kInt8B = 1, kInt8AZero = 2, kInt8BZero = 3, kInt8Scale = 4,
                 kInt8Bias = 5;

bool int8_to_float(const ir::Node& node) {
  return node.domain == ops::kStrataDomain && node.op_type == "MatMulIntegerToFloat";
}

bool int8_matmul_serves(const ir::Node& node) {
  return int8_to_float(node) || (node.domain.empty() && node.op_type == "MatMulInteger");
}

bool int8_one_value(const Shape& s) {
  return s.rank() == 0 || (s.rank() == 1 && s[0].value() == 1);
}

Verdict int8_matmul_supports(const NodeRequest& r) {
  if (!int8_gemm_available())
    return Verdict::no("needs AVX2 (beyond this CPU or the SIMD ceiling)");
  const DType a = r.input(kInt8A).dtype;
  if (a != DType::kU8 && a != DType::kI8) return Verdict::no("A must be uint8 or int8");
  if (r.input(kInt8A).shape.rank() < 1) return Verdict::no("A is a scalar");
  const ops::Meta& b = r.input(kInt8B);
  if (!b.value) return Verdict::no("B is not constant (packed at prepare)");
  if (b.dtype != DType::kI8) return Verdict::no("B is uint8; int8 weights only");
  if (b.shape.rank() != 2) return Verdict::no("B is not 2-D");
  if (r.has_input(kInt8AZero) && !int8_one_value(r.input(kInt8AZero).shape))
    return Verdict::no("a_zero_point is not one value (per row)");
  bool b_zero = false;
  if (r.has_input(kInt8BZero)) {
    const ops::Meta& z = r.input(kInt8BZero);
    if (!z.value) return Verdict::no("b_zero_point is not constant");
    if (z.value->numel() != 1 && z.value->numel() != b.shape.values()[1])
      return Verdict::no("b_zero_point is neither one value nor one per column");
    for (double v : z.value->to_double()) b_zero |= v != 0;
  }
  std::string inexact = int8_product_problem(*b.value, 1, a);
  if (inexact.empty() && b_zero) inexact = "oneDNN 2.6 takes no weight zero points";
  if (inexact.empty())
    return Verdict::no("oneDNN's int8 matmul is exact for these weights on this CPU");
  return Verdict::yes("exact int8 GEMM in 16-bit pairs (vpmaddwd): " + inexact);
}

class Int8MatMulKernel final : public Kernel {
 public:
  explicit Int8MatMulKernel(const NodeRequest& r)
      : to_float_(int8_to_float(r.node)),
        a_signed_(r.input(kInt8A).dtype == DType::kI8),
        has_a_zero_(r.has_input(kInt8AZero)),
        has_bias_(to_float_ && r.has_input(kInt8Bias)),
        threads_(std::max(1, r.threads)) {
    name_ = "cpu:int8_gemm:avx2";  // AVX2 code also where AVX-512 is there (no VNNI)
    const std::vector<int64_t> a_shape = r.input(kInt8A).shape.values();
    const Tensor& b = *r.input(kInt8B).value;
    const int64_t k = b.shape()[0], n = b.shape()[1];
    rows_ = 1;
    for (size_t d = 0; d + 1 < a_shape.size(); ++d) rows_ *= a_shape[d];
    std::vector<int32_t> b_zero;
    if (r.has_input(kInt8BZero))
      for (int64_t v : r.input(kInt8BZero).value->to_int64()) b_zero.push_back(int32_t(v));
    gemm_ = Int8Gemm(b.data<int8_t>(), k, n, b_zero);
    packed_bytes_ = gemm_.packed_bytes();
    scratch_bytes_ = gemm_.scratch_bytes(rows_, threads_);
    if (to_float_) scale_per_column_ = r.input(kInt8Scale).shape.numel().value() != 1;
    input_layouts_.assign(r.inputs.size(), Layout::kPlain);
    output_layouts_.assign(r.outputs.size(), Layout::kPlain);
  }

  void run(const KernelArgs& args) override {
    int32_t a_zero = 0;
    if (has_a_zero_) {
      const Tensor& z = *args.inputs[kInt8AZero];
      a_zero = a_signed_ ? int32_t(z.data<int8_t>()[0]) : int32_t(z.data<uint8_t>()[0]);
    }
    Int8GemmFloatOutput float_output;
    if (to_float_) {
      float_output.scale = args.inputs[kInt8Scale]->data<float>();
      float_output.scale_per_column = scale_per_column_;
      float_output.bias = has_bias_ ? args.inputs[kInt8Bias]->data<float>() : nullptr;
    }
    gemm_.multiply(args.inputs[kInt8A]->raw(), a_signed_, a_zero, rows_, args.outputs[0]->raw(),
                   to_float_ ? &float_output : nullptr, args.scratch, threads_);
  }

 private:
  bool to_float_, a_signed_, has_a_zero_, has_bias_;
  bool scale_per_column_ = false;
  int threads_;
  int64_t rows_ = 1;
  Int8Gemm gemm_;
};

std::unique_ptr<Kernel> int8_matmul_prepare(const NodeRequest& r) {
  return std::make_unique<Int8MatMulKernel>(r);
}

}  // namespace

KernelFamily int8_matmul_family() {
  return {"cpu_int8_matmul",    false, &int8_matmul_serves, &int8_matmul_supports,
          &int8_matmul_prepare, false};
}

}  // namespace strata::kernels::cpu
