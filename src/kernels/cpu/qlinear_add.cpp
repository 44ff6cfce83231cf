// strata's QLinearAdd (a quantized graph's residual add, src/ops/qlinear_add.cpp) in one pass over
// the 8-bit data: both operands dequantized, added and requantized 16 values at a time (AVX-512,
// and AVX2's multiplying way) or 8 (AVX2's dividing way) in the reference kernel's float32
// arithmetic (equal results), where the graph it replaces wrote two float32 copies and their
// float32 sum. Element-wise: plain or channels-last data is read as it comes, both operands in one
// layout. Large tensors are shared among the session's threads. The reference divides the sum by
// C's scale; the output depends on the two 8-bit operands alone (65536 pairs), so at prepare every
// pair is tried with a product by a reciprocal instead (1 / scale or a neighbour of it), rounded by
// adding 1.5 · 2^23, the zero point added to the integer and the packs saturating, and where one
// reciprocal gives every pair's output unchanged the kernel takes that way (a division takes 5-10
// times a product's throughput; the rounding and clamping steps go too).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/int8_requantize_simd.h"
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
  // Set where a product by it was proven to give every output the division gives (0: divide).
  float c_reciprocal = 0;
};

// The output for a sum already divided by C's scale.
template <class C>
C quantize_scaled(float scaled, const Parameters& p) {
  return C(std::clamp(std::nearbyint(scaled) + p.c_zero, float(std::numeric_limits<C>::lowest()),
                      float(std::numeric_limits<C>::max())));
}

// Compiled without FMA (the baseline target): two roundings, as in the reference kernel.
template <class A, class B>
float add_dequantized(A a, B b, const Parameters& p) {
  return (float(a) - p.a_zero) * p.a_scale + (float(b) - p.b_zero) * p.b_scale;
}

template <class A, class B, class C>
void add_scalar(const A* a, const B* b, C* c, int64_t n, const Parameters& p) {
  for (int64_t i = 0; i < n; ++i)
    c[i] = quantize_scaled<C>(add_dequantized(a[i], b[i], p) / p.c_scale, p);
}

// 1.5 · 2^23: added to the sum times the reciprocal, it leaves that rounded (half to even) in the
// float's low bits while it lies within ±2^22: the float's bits less kMagicBits. The zero point is
// added to those (as the reference adds it after rounding).
constexpr float kMagic = float(3 << 22);
constexpr int32_t kMagicBits = 0x4B400000;

// What the multiplying kernels subtract from the float's bits: kMagicBits less C's zero point.
int32_t magic_bits_less_zero(const Parameters& p) {
  return kMagicBits - int32_t(p.c_zero);
}

// The multiplying kernels' output for a sum, in scalar: its product by r plus kMagic (two
// roundings), the float's bits less magic_bits_less_zero, saturated as the packs saturate.
template <class C>
C multiplied_output(float sum, float r, const Parameters& p) {
  const float shifted = sum * r + kMagic;
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  return C(std::clamp<int64_t>(int64_t(bits) - magic_bits_less_zero(p),
                               std::numeric_limits<C>::lowest(), std::numeric_limits<C>::max()));
}

// A reciprocal of C's scale with which multiplied_output gives every pair of operands the output
// the division gives, or 0. Candidates: 1 / scale rounded, and its nearest floats on either side.
template <class A, class B, class C>
float exact_reciprocal(const Parameters& p) {
  using ALimits = std::numeric_limits<A>;
  using BLimits = std::numeric_limits<B>;
  const float nearest = 1.0f / p.c_scale;
  const float candidates[] = {nearest, std::nextafter(nearest, 0.0f),
                              std::nextafter(nearest, std::numeric_limits<float>::infinity())};
  for (const float r : candidates) {
    if (!std::isfinite(r) || r == 0) continue;
    bool equal = true;
    for (int a = ALimits::lowest(); equal && a <= ALimits::max(); ++a)
      for (int b = BLimits::lowest(); b <= BLimits::max(); ++b) {
        const float sum = add_dequantized(A(a), B(b), p);
        if (multiplied_output<C>(sum, r, p) != quantize_scaled<C>(sum / p.c_scale, p)) {
          equal = false;
          break;
        }
      }
    if (equal) return r;
  }
  return 0;
}

struct VectorParameters {
  __m512 a_scale, a_zero, b_scale, b_zero, c_scale, c_zero;
  // The multiplying way's: kMagic and magic_bits_less_zero (c_scale holds the reciprocal).
  __m512 magic;
  __m512i magic_bits;
};

template <class A, class B>
STRATA_AVX512BW __m512 add_dequantized16(const VectorParameters& p, __m128i a, __m128i b) {
  // An explicitly rounded add: the compiler may not contract it with the products into a fused
  // multiply-add, which rounds once where the reference kernel rounds twice.
  return _mm512_add_round_ps(dequantize16<A>(a, p.a_scale, p.a_zero),
                             dequantize16<B>(b, p.b_scale, p.b_zero),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// multiplied_output for 16 sums: r and the magic in p's c_scale and c_zero.
template <class C>
STRATA_AVX512BW __m128i multiplied16(const VectorParameters& p, __m512 sum) {
  const __m512 shifted = _mm512_add_round_ps(_mm512_mul_ps(sum, p.c_scale), p.magic,
                                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512i y = _mm512_sub_epi32(_mm512_castps_si512(shifted), p.magic_bits);
  if constexpr (std::is_signed_v<C>)
    return _mm512_cvtsepi32_epi8(y);
  else  // the unsigned narrowing takes negative values for large ones
    return _mm512_cvtusepi32_epi8(_mm512_max_epi32(y, _mm512_setzero_si512()));
}

template <class A, class B, class C, bool kMultiply>
STRATA_AVX512BW __m128i add16(const VectorParameters& p, __m128i a, __m128i b) {
  const __m512 sum = add_dequantized16<A, B>(p, a, b);
  if constexpr (kMultiply)
    return multiplied16<C>(p, sum);
  else
    return quantize16<C>(sum, p.c_scale, p.c_zero);
}

// kMultiply: by p.c_reciprocal, rounded by kMagic (VectorParameters' c_scale holds the
// reciprocal).
template <class A, class B, class C, bool kMultiply>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void add_avx512(const A* a, const B* b, C* c,
                                                                     int64_t n,
                                                                     const Parameters& p) {
  const VectorParameters p_v = {_mm512_set1_ps(p.a_scale),
                                _mm512_set1_ps(p.a_zero),
                                _mm512_set1_ps(p.b_scale),
                                _mm512_set1_ps(p.b_zero),
                                _mm512_set1_ps(kMultiply ? p.c_reciprocal : p.c_scale),
                                _mm512_set1_ps(p.c_zero),
                                _mm512_set1_ps(kMagic),
                                _mm512_set1_epi32(magic_bits_less_zero(p))};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(c + i),
        add16<A, B, C, kMultiply>(p_v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
                                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    _mm_mask_storeu_epi8(c + i, tail,
                         add16<A, B, C, kMultiply>(p_v, _mm_maskz_loadu_epi8(tail, a + i),
                                                   _mm_maskz_loadu_epi8(tail, b + i)));
  }
}

// Without FMA in the target, the products and the sums cannot be contracted. Multiplying: 16
// values a step, their 16 outputs packed and stored at once; dividing: 8 a step.
template <class A, class B, class C, bool kMultiply>
__attribute__((target("avx2"))) void add_avx2(const A* a, const B* b, C* c, int64_t n,
                                              const Parameters& p) {
  const __m256 a_scale = _mm256_set1_ps(p.a_scale), a_zero = _mm256_set1_ps(p.a_zero);
  const __m256 b_scale = _mm256_set1_ps(p.b_scale), b_zero = _mm256_set1_ps(p.b_zero);
  const __m256 c_scale = _mm256_set1_ps(p.c_scale), c_zero = _mm256_set1_ps(p.c_zero);
  const auto sum8 = [&](__m128i a8, __m128i b8) __attribute__((target("avx2"), always_inline)) {
    return _mm256_add_ps(dequantize8<A>(a8, a_scale, a_zero), dequantize8<B>(b8, b_scale, b_zero));
  };
  int64_t i = 0;
  if constexpr (kMultiply) {
    const __m256 reciprocal = _mm256_set1_ps(p.c_reciprocal);
    const __m256 magic = _mm256_set1_ps(kMagic);
    const __m256i magic_bits = _mm256_set1_epi32(magic_bits_less_zero(p));
    const auto output8 = [&](__m256 sum) __attribute__((target("avx2"), always_inline)) {
      return _mm256_sub_epi32(
          _mm256_castps_si256(_mm256_add_ps(_mm256_mul_ps(sum, reciprocal), magic)), magic_bits);
    };
    for (; i + 16 <= n; i += 16) {
      const __m128i a16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
      const __m128i b16 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      const __m256i low = output8(sum8(a16, b16));
      const __m256i high = output8(sum8(_mm_srli_si128(a16, 8), _mm_srli_si128(b16, 8)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(c + i), int8_requantize_pack16<C>(low, high));
    }
  } else {
    for (; i + 8 <= n; i += 8)
      store8(c + i, quantize8<C>(sum8(load8(a + i), load8(b + i)), c_scale, c_zero));
  }
  add_scalar(a + i, b + i, c + i, n - i, p);  // equal to the multiplying way, where that is taken
}

#pragma GCC diagnostic pop

class QLinearAddKernel final : public Kernel {
 public:
  explicit QLinearAddKernel(const NodeRequest& r)
      : a_type_(r.input(kA).dtype), b_type_(r.input(kB).dtype), c_type_(r.output(0).dtype) {
    const auto value = [&](size_t i) { return float(r.input(i).value->to_double()[0]); };
    p_ = {value(kA + 1), value(kA + 2),  value(kB + 1),
          value(kB + 2), value(kCScale), value(kCZero)};
    visit_8_bit(a_type_, [&]<class A>(Type<A>) {
      visit_8_bit(b_type_, [&]<class B>(Type<B>) {
        visit_8_bit(c_type_,
                    [&]<class C>(Type<C>) { p_.c_reciprocal = exact_reciprocal<A, B, C>(p_); });
      });
    });
    note_ =
        p_.c_reciprocal != 0
            ? "the sums times a reciprocal of C's scale, rounded by a magic number and saturated "
              "by the packs, proven at prepare to give every pair of operands the output of the "
              "reference's division"
            : "the sums divided by C's scale (no reciprocal gives every pair of operands the "
              "division's output)";
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
      const bool multiply = p_.c_reciprocal != 0;
      if (simd_ == Simd::kAvx512 && multiply)
        add_avx512<A, B, C, true>(a + begin, b + begin, c + begin, end - begin, p_);
      else if (simd_ == Simd::kAvx512)
        add_avx512<A, B, C, false>(a + begin, b + begin, c + begin, end - begin, p_);
      else if (simd_ == Simd::kAvx2 && multiply)
        add_avx2<A, B, C, true>(a + begin, b + begin, c + begin, end - begin, p_);
      else if (simd_ == Simd::kAvx2)
        add_avx2<A, B, C, false>(a + begin, b + begin, c + begin, end - begin, p_);
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
