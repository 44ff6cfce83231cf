// QuantizeLinear (float32 → uint8/int8) and DequantizeLinear (uint8/int8 → float32) with one scale
// and zero point for the whole tensor, and DynamicQuantizeLinear (float32 → uint8, its range
// measured first), the layout QDQ models put between their quantized layers.
// The same arithmetic as the reference kernels (src/ops/quantize.cpp), so the results are equal:
// x / scale in float32, rounded half to even, plus the zero point, saturated; (q - zero point) ·
// scale in float32 (exact before its one rounding, as the reference's double product is). AVX-512
// or AVX2 where the CPU has it. Element-wise, so any layout without padding (plain, channels-last)
// is read and written as it comes. Per-axis and blocked parameters stay on the reference kernel.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/cpu/quantize_simd.h"
#include "kernels/kernel.h"

namespace strata::kernels::cpu {

namespace {

bool is_quantize(const ir::Node& node) {
  return node.op_type == "QuantizeLinear";
}

bool is_dynamic(const ir::Node& node) {
  return node.op_type == "DynamicQuantizeLinear";
}

bool quantize_serves(const ir::Node& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") &&
         (node.op_type == "QuantizeLinear" || node.op_type == "DequantizeLinear" ||
          is_dynamic(node));
}

Verdict quantize_supports(const NodeRequest& r) {
  if (is_dynamic(r.node))
    return r.input(0).dtype == DType::kF32 ? Verdict::yes("float32 to uint8, range measured")
                                           : Verdict::no("float32 input only");
  const DType in = r.input(0).dtype, out = r.output(0).dtype;
  const bool quantize = is_quantize(r.node);
  if (quantize ? !(in == DType::kF32 && is_8_bit(out)) : !(is_8_bit(in) && out == DType::kF32))
    return Verdict::no("float32 to or from uint8/int8 only");
  if (!r.input(1).value || r.input(1).value->numel() != 1 || r.input(1).dtype != DType::kF32)
    return Verdict::no("the scale is not one constant float32 (per-axis or blocked)");
  if (r.has_input(2) && (!r.input(2).value || r.input(2).value->numel() != 1))
    return Verdict::no("the zero point is not one constant");
  if (!(r.input(1).value->to_double()[0] > 0))
    return Verdict::no("the scale is not positive (the reference kernel says so)");
  const Layout layout = r.input_layouts[0];
  if (layout != Layout::kPlain && layout != Layout::kChannelsLast)
    return Verdict::no("blocked layouts carry padding: the input is made plain first");
  return Verdict::yes("per-tensor scale and zero point");
}

template <class Q>
void quantize_scalar(const float* x, Q* y, int64_t n, float scale, float zero_point) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = Q(std::clamp(std::nearbyint(x[i] / scale) + zero_point,
                        float(std::numeric_limits<Q>::lowest()),
                        float(std::numeric_limits<Q>::max())));
}

template <class Q>
void dequantize_scalar(const Q* x, float* y, int64_t n, float scale, float zero_point) {
  for (int64_t i = 0; i < n; ++i) y[i] = (float(x[i]) - zero_point) * scale;
}

void range_scalar(const float* x, int64_t n, float& lo, float& hi) {
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
}

// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialised
// values once they are inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

template <class Q>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void quantize_avx512(const float* x, Q* y,
                                                                          int64_t n, float scale,
                                                                          float zero_point) {
  const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     quantize16<Q>(_mm512_loadu_ps(x + i), s, z));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm_mask_storeu_epi8(y + i, tail, quantize16<Q>(_mm512_maskz_loadu_ps(tail, x + i), s, z));
  }
}

template <class Q>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void dequantize_avx512(const Q* x, float* y,
                                                                            int64_t n, float scale,
                                                                            float zero_point) {
  const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(
        y + i, dequantize16<Q>(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i)), s, z));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(y + i, tail, dequantize16<Q>(_mm_maskz_loadu_epi8(tail, x + i), s, z));
  }
}

// The smallest and largest of x and lo, hi (NaN skipped, as std::min/std::max skip it in the
// reference).
__attribute__((target("avx512f,avx512bw,avx512vl"))) void range_avx512(const float* x, int64_t n,
                                                                       float& lo, float& hi) {
  __m512 mn = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    mn = _mm512_min_ps(v, mn);  // the second operand when v is NaN
    mx = _mm512_max_ps(v, mx);
  }
  alignas(64) float a[16], b[16];
  _mm512_store_ps(a, mn);
  _mm512_store_ps(b, mx);
  range_scalar(a, 16, lo, hi);  // mins (≤ 0) leave hi as it is, maxima (≥ 0) leave lo
  range_scalar(b, 16, lo, hi);
  range_scalar(x + i, n - i, lo, hi);
}

template <class Q>
__attribute__((target("avx2"))) void quantize_avx2(const float* x, Q* y, int64_t n, float scale,
                                                   float zero_point) {
  const __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zero_point);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) store8(y + i, quantize8<Q>(_mm256_loadu_ps(x + i), s, z));
  quantize_scalar(x + i, y + i, n - i, scale, zero_point);
}

template <class Q>
__attribute__((target("avx2"))) void dequantize_avx2(const Q* x, float* y, int64_t n, float scale,
                                                     float zero_point) {
  const __m256 s = _mm256_set1_ps(scale), z = _mm256_set1_ps(zero_point);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, dequantize8<Q>(load8(x + i), s, z));
  dequantize_scalar(x + i, y + i, n - i, scale, zero_point);
}

__attribute__((target("avx2"))) void range_avx2(const float* x, int64_t n, float& lo, float& hi) {
  __m256 mn = _mm256_setzero_ps(), mx = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    mn = _mm256_min_ps(v, mn);  // the second operand when v is NaN
    mx = _mm256_max_ps(v, mx);
  }
  alignas(32) float a[8], b[8];
  _mm256_store_ps(a, mn);
  _mm256_store_ps(b, mx);
  range_scalar(a, 8, lo, hi);  // as in range_avx512
  range_scalar(b, 8, lo, hi);
  range_scalar(x + i, n - i, lo, hi);
}

#pragma GCC diagnostic pop

// The loops above for the instruction set the kernel was prepared for.
template <class Q>
void quantize(Simd simd, const float* x, Q* y, int64_t n, float scale, float zero_point) {
  if (simd == Simd::kAvx512)
    quantize_avx512<Q>(x, y, n, scale, zero_point);
  else if (simd == Simd::kAvx2)
    quantize_avx2<Q>(x, y, n, scale, zero_point);
  else
    quantize_scalar<Q>(x, y, n, scale, zero_point);
}

template <class Q>
void dequantize(Simd simd, const Q* x, float* y, int64_t n, float scale, float zero_point) {
  if (simd == Simd::kAvx512)
    dequantize_avx512<Q>(x, y, n, scale, zero_point);
  else if (simd == Simd::kAvx2)
    dequantize_avx2<Q>(x, y, n, scale, zero_point);
  else
    dequantize_scalar<Q>(x, y, n, scale, zero_point);
}

// The smallest and largest of x and 0.
void range(Simd simd, const float* x, int64_t n, float& lo, float& hi) {
  lo = hi = 0;
  if (simd == Simd::kAvx512)
    range_avx512(x, n, lo, hi);
  else if (simd == Simd::kAvx2)
    range_avx2(x, n, lo, hi);
  else
    range_scalar(x, n, lo, hi);
}

class QuantizeKernel final : public Kernel {
 public:
  explicit QuantizeKernel(const NodeRequest& r)
      : quantize_(is_quantize(r.node)),
        narrow_(quantize_ ? r.output(0).dtype : r.input(0).dtype),
        scale_(float(r.input(1).value->to_double()[0])),
        zero_point_(r.has_input(2) ? float(r.input(2).value->to_double()[0]) : 0.f) {
    const Layout layout = r.input_layouts[0];
    input_layouts_ = {layout};
    output_layouts_ = {r.output_needs_plain[0] ? Layout::kPlain : layout};
    if (output_layouts_[0] != layout) input_layouts_ = {Layout::kPlain};
    name_ = std::string("cpu:") + simd_name(simd_);
  }

  void run(const KernelArgs& args) override {
    const Tensor& x = *args.inputs[0];
    Tensor& y = *args.outputs[0];
    const int64_t n = x.numel();
    if (narrow_ == DType::kU8)
      dispatch<uint8_t>(x, y, n);
    else
      dispatch<int8_t>(x, y, n);
  }

 private:
  template <class Q>
  void dispatch(const Tensor& x, Tensor& y, int64_t n) const {
    if (quantize_) {
      const auto* in = static_cast<const float*>(x.raw());
      auto* out = static_cast<Q*>(y.raw());
      quantize<Q>(simd_, in, out, n, scale_, zero_point_);
    } else {
      const auto* in = static_cast<const Q*>(x.raw());
      auto* out = static_cast<float*>(y.raw());
      dequantize<Q>(simd_, in, out, n, scale_, zero_point_);
    }
  }

  Simd simd_ = simd_level();
  bool quantize_;
  DType narrow_;
  float scale_, zero_point_;
};

// DynamicQuantizeLinear: uint8 with scale (max(x, 0) - min(x, 0)) / 255 and zero point
// round(-min / scale), in float32 as the reference computes them; then QuantizeLinear's pass.
class DynamicQuantizeKernel final : public Kernel {
 public:
  DynamicQuantizeKernel() { name_ = std::string("cpu:") + simd_name(simd_); }

  void run(const KernelArgs& args) override {
    const Tensor& x = *args.inputs[0];
    const float* v = static_cast<const float*>(x.raw());
    const int64_t n = x.numel();
    float lo, hi;
    range(simd_, v, n, lo, hi);
    const float scale = (hi - lo) / 255.0f;
    const float zp = scale > 0 ? std::clamp(std::nearbyint(-lo / scale), 0.f, 255.f) : 0.f;
    auto* y = static_cast<uint8_t*>(args.outputs[0]->raw());
    if (!(scale > 0))
      std::fill(y, y + n, uint8_t(0));
    else
      quantize<uint8_t>(simd_, v, y, n, scale, zp);
    if (args.num_outputs > 1 && args.outputs[1]) args.outputs[1]->data<float>()[0] = scale;
    if (args.num_outputs > 2 && args.outputs[2]) args.outputs[2]->data<uint8_t>()[0] = uint8_t(zp);
  }

 private:
  Simd simd_ = simd_level();
};

std::unique_ptr<Kernel> quantize_prepare(const NodeRequest& r) {
  if (is_dynamic(r.node)) return std::make_unique<DynamicQuantizeKernel>();
  return std::make_unique<QuantizeKernel>(r);
}

}  // namespace

KernelFamily quantize_family() {
  return {"cpu_quantize", true, &quantize_serves, &quantize_supports, &quantize_prepare, false};
}

}  // namespace strata::kernels::cpu
