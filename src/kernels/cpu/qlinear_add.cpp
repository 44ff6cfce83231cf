// strata's QLinearAdd (a quantized graph's residual add, src/ops/qlinear_add.cpp) in one pass over
// the 8-bit data: both operands dequantized, added and requantized 16 values at a time (AVX-512)
// or 8 (AVX2) in the reference kernel's float32 arithmetic (equal results), where the graph it
// replaces wrote two float32 copies and their float32 sum. Element-wise: plain or channels-last
// data is read as it comes, both operands in one layout. Large tensors are shared among the
// session's threads.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/quantize_simd.h"
#include "kernels/kernel.h"
#include "ops/internal_ops.h"

namespace strata::kernels::cpu {

namespace {

// Below this many values one thread does the whole add (waking a second costs more).
constexpr int64_t kQLinearAddShareValues = int64_t(1) << 17;

constexpr size_t kA = 0, kB = 3, kCScale = 6, kCZero = 7;

bool qlinear_add_serves(const ir::Node& node) {
  return node.domain == ops::kStrataDomain && node.op_type == "QLinearAdd";
}

Verdict qlinear_add_supports(const NodeRequest& r) {
  for (size_t i : {kA + 1, kA + 2, kB + 1, kB + 2, kCScale, kCZero})
    if (!r.has_input(i) || !r.input(i).value)
      return Verdict::no("a scale or zero point is not constant");
  for (size_t i : {kA + 1, kB + 1, kCScale})
    if (!(r.input(i).value->to_double()[0] > 0))  // the reference kernel names the input
      return Verdict::no("a scale is not positive");
  if (!is_8_bit(r.input(kA).dtype) || !is_8_bit(r.input(kB).dtype) || !is_8_bit(r.output(0).dtype))
    return Verdict::no("8-bit operands only");
  const Layout layout = r.input_layouts[kA];
  if (layout != Layout::kPlain && layout != Layout::kChannelsLast)
    return Verdict::no("blocked layouts carry padding: the inputs are made plain first");
  return Verdict::yes("8-bit add with per-tensor scales and zero points, one pass");
}

// GCC 12 takes the intrinsics' deliberately undefined pass-through operands for uninitialised
// values once they are inlined here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

struct Parameters {
  float a_scale, a_zero, b_scale, b_zero, c_scale, c_zero;
};

// Compiled without FMA (the baseline target): two roundings, as in the reference kernel.
template <class A, class B, class C>
void add_scalar(const A* a, const B* b, C* c, int64_t n, const Parameters& p) {
  for (int64_t i = 0; i < n; ++i) {
    const float sum = (float(a[i]) - p.a_zero) * p.a_scale + (float(b[i]) - p.b_zero) * p.b_scale;
    c[i] = C(std::clamp(std::nearbyint(sum / p.c_scale) + p.c_zero,
                        float(std::numeric_limits<C>::lowest()),
                        float(std::numeric_limits<C>::max())));
  }
}

struct VectorParameters {
  __m512 a_scale, a_zero, b_scale, b_zero, c_scale, c_zero;
};

template <class A, class B, class C>
STRATA_AVX512BW __m128i add16(const VectorParameters& p, __m128i a, __m128i b) {
  // An explicitly rounded add: the compiler may not contract it with the products into a fused
  // multiply-add, which rounds once where the reference kernel rounds twice.
  return quantize16<C>(_mm512_add_round_ps(dequantize16<A>(a, p.a_scale, p.a_zero),
                                           dequantize16<B>(b, p.b_scale, p.b_zero),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                       p.c_scale, p.c_zero);
}

template <class A, class B, class C>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void add_avx512(const A* a, const B* b, C* c,
                                                                     int64_t n,
                                                                     const Parameters& p) {
  const VectorParameters p_v = {_mm512_set1_ps(p.a_scale), _mm512_set1_ps(p.a_zero),
                                _mm512_set1_ps(p.b_scale), _mm512_set1_ps(p.b_zero),
                                _mm512_set1_ps(p.c_scale), _mm512_set1_ps(p.c_zero)};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i),
                     add16<A, B, C>(p_v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
                                    _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm_mask_storeu_epi8(
        c + i, tail,
        add16<A, B, C>(p_v, _mm_maskz_loadu_epi8(tail, a + i), _mm_maskz_loadu_epi8(tail, b + i)));
  }
}

// Without FMA in the target, the product and the sum cannot be contracted.
template <class A, class B, class C>
__attribute__((target("avx2"))) void add_avx2(const A* a, const B* b, C* c, int64_t n,
                                              const Parameters& p) {
  const __m256 a_scale = _mm256_set1_ps(p.a_scale), a_zero = _mm256_set1_ps(p.a_zero);
  const __m256 b_scale = _mm256_set1_ps(p.b_scale), b_zero = _mm256_set1_ps(p.b_zero);
  const __m256 c_scale = _mm256_set1_ps(p.c_scale), c_zero = _mm256_set1_ps(p.c_zero);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    store8(c + i, quantize8<C>(_mm256_add_ps(dequantize8<A>(load8(a + i), a_scale, a_zero),
                                             dequantize8<B>(load8(b + i), b_scale, b_zero)),
                               c_scale, c_zero));
  add_scalar(a + i, b + i, c + i, n - i, p);
}

#pragma GCC diagnostic pop

class QLinearAddKernel final : public Kernel {
 public:
  explicit QLinearAddKernel(const NodeRequest& r)
      : a_type_(r.input(kA).dtype), b_type_(r.input(kB).dtype), c_type_(r.output(0).dtype) {
    const auto value = [&](size_t i) { return float(r.input(i).value->to_double()[0]); };
    p_ = {value(kA + 1), value(kA + 2),  value(kB + 1),
          value(kB + 2), value(kCScale), value(kCZero)};
    const Layout layout = r.output_needs_plain[0] ? Layout::kPlain : r.input_layouts[kA];
    input_layouts_ = {layout, Layout::kPlain, Layout::kPlain, layout};
    input_layouts_.resize(r.inputs.size(), Layout::kPlain);
    output_layouts_ = {layout};
    name_ = std::string("cpu:") + simd_name(simd_);
  }

  void run(const KernelArgs& args) override {
    visit_8_bit(a_type_, [&]<class A>(Type<A>) {
      visit_8_bit(b_type_, [&]<class B>(Type<B>) {
        visit_8_bit(c_type_, [&]<class C>(Type<C>) { add<A, B, C>(args); });
      });
    });
  }

 private:
  template <class A, class B, class C>
  void add(const KernelArgs& args) const {
    const auto* a = static_cast<const A*>(args.inputs[kA]->raw());
    const auto* b = static_cast<const B*>(args.inputs[kB]->raw());
    auto* c = static_cast<C*>(args.outputs[0]->raw());
    const int64_t n = args.outputs[0]->numel();
#pragma omp parallel if (n >= kQLinearAddShareValues)
    {
      const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t begin = n * t / threads / 64 * 64;
      const int64_t end = t + 1 == threads ? n : n * (t + 1) / threads / 64 * 64;
      if (simd_ == Simd::kAvx512)
        add_avx512(a + begin, b + begin, c + begin, end - begin, p_);
      else if (simd_ == Simd::kAvx2)
        add_avx2(a + begin, b + begin, c + begin, end - begin, p_);
      else
        add_scalar(a + begin, b + begin, c + begin, end - begin, p_);
    }
  }

  Simd simd_ = simd_level();
  DType a_type_, b_type_, c_type_;
  Parameters p_{};
};

std::unique_ptr<Kernel> qlinear_add_prepare(const NodeRequest& r) {
  return std::make_unique<QLinearAddKernel>(r);
}

}  // namespace

KernelFamily qlinear_add_family() {
  return {"cpu_qlinear_add",    true, &qlinear_add_serves, &qlinear_add_supports,
          &qlinear_add_prepare, false};
}

}  // namespace strata::kernels::cpu
