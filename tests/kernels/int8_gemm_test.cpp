// strata's exact int8 GEMM (src/kernels/cpu/int8_gemm.cpp) against sums computed in int64 here,
// and its kernel family (src/kernels/cpu/int8_matmul.cpp) against the reference kernels of
// MatMulInteger and MatMulIntegerToFloat: random shapes (odd k, n past a multiple of 16, 1 to 40
// rows), uint8 and int8 A, zero points, and weights whose pairs of products overflow 16 bits
// (the case oneDNN's AVX2 kernels saturate). Integer outputs must be equal; float32 outputs too,
// since the kernel rounds each step as the reference does.
#include "kernels/cpu/int8_gemm.h"

#include <gtest/gtest.h>

#include "kernels/int8_products.h"
#include "kernels/kernel_test_util.h"
#include "ops/internal_ops.h"
#include "ops/requantize.h"

namespace strata::test {
namespace {

using kernels::cpu::Int8Gemm;
using kernels::cpu::Int8GemmFloatOutput;

#define STRATA_NEEDS_INT8_GEMM()                                                         \
  if (!kernels::cpu::int8_gemm_available())                                              \
  GTEST_SKIP() << "this CPU has no AVX2: strata's int8 GEMM is not used (the reference " \
                  "kernel runs the products)"

// Weights of which about half are ±127 (every column's pairs overflow 16 bits), the rest random.
std::vector<int8_t> int8_gemm_weights(std::mt19937& rng, int64_t count) {
  std::vector<int8_t> w(static_cast<size_t>(count));
  for (int8_t& v : w)
    v = random_int(rng, 0, 1) ? int8_t(random_int(rng, 0, 1) ? 127 : -127)
                              : int8_t(random_int(rng, -128, 127));
  return w;
}

// Σ (a − a_zero) · (b − b_zero[column]) in int64, then int32 as the reference stores it.
std::vector<int32_t> int8_gemm_expected(const std::vector<uint8_t>& a, bool a_signed,
                                        int32_t a_zero, const std::vector<int8_t>& b,
                                        const std::vector<int32_t>& b_zero, int64_t rows, int64_t k,
                                        int64_t n) {
  std::vector<int32_t> c(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      const int32_t bz = b_zero.empty() ? 0 : b_zero[b_zero.size() == 1 ? 0 : size_t(j)];
      int64_t sum = 0;
      for (int64_t i = 0; i < k; ++i) {
        const uint8_t raw = a[size_t(r * k + i)];
        const int32_t av = a_signed ? int32_t(int8_t(raw)) : int32_t(raw);
        sum += int64_t(av - a_zero) * (int32_t(b[size_t(i * n + j)]) - bz);
      }
      c[size_t(r * n + j)] = int32_t(sum);
    }
  return c;
}

// Weights within ±40 but for one in 200, of either sign and past 100 (-128 too): few pairs of
// one column could saturate, as in BERT's per-tensor weights (the byte kernel's weight fixes).
std::vector<int8_t> int8_gemm_few_large_weights(std::mt19937& rng, int64_t count) {
  std::vector<int8_t> w(static_cast<size_t>(count));
  for (int8_t& v : w)
    v = random_int(rng, 0, 199) ? int8_t(random_int(rng, -40, 40))
                                : int8_t(random_int(rng, 0, 1) ? random_int(rng, 100, 127)
                                                               : random_int(rng, -128, -100));
  return w;
}

// A's values as stored (uint8, or int8's bytes): uniform over the type (mostly outside the byte
// kernel's clipped range: dense residuals, which take the int16 kernel), or within 64 of the zero
// point but for one in 50 (sparse residuals: the byte kernel).
std::vector<uint8_t> int8_gemm_activations(std::mt19937& rng, int64_t count, bool a_signed,
                                           int32_t a_zero, bool near_zero_point) {
  std::vector<uint8_t> a(static_cast<size_t>(count));
  const int32_t zero = a_zero + (a_signed ? 128 : 0);  // as uint8
  for (uint8_t& v : a) {
    const bool outlier = !near_zero_point || random_int(rng, 0, 49) == 0;
    const auto u = outlier ? uint8_t(random_int(rng, 0, 255))
                           : uint8_t(std::clamp<int64_t>(zero + random_int(rng, -64, 64), 0, 255));
    v = a_signed ? uint8_t(u ^ 0x80) : u;
  }
  return a;
}

// Int8Gemm's int32, float32 and requantized outputs against sums in int64, on random shapes
// (`large`: split among threads, k in several passes), zero points and weights half of which
// are ±127.
void expect_int8_gemm_exact(std::mt19937& rng, int trial, bool large, bool near_zero_point,
                            bool few_large_weights = false) {
  const int64_t rows = large ? random_int(rng, 20, 40) : random_int(rng, 1, 40);
  const int64_t k = large ? random_int(rng, 770, 2200) : random_int(rng, 1, 200);
  const int64_t n = large ? random_int(rng, 100, 200) : random_int(rng, 1, 70);
  const bool a_signed = trial % 2 == 1;
  const int32_t a_zero =
      a_signed ? int32_t(random_int(rng, -128, 127)) : int32_t(random_int(rng, 0, 255));
  std::vector<int32_t> b_zero;
  if (trial % 3 == 1) b_zero = {int32_t(random_int(rng, -128, 127))};
  if (trial % 3 == 2)
    for (int64_t j = 0; j < n; ++j) b_zero.push_back(int32_t(random_int(rng, -128, 127)));
  SCOPED_TRACE(testing::Message() << "trial " << trial << ": " << rows << "×" << k << "×" << n
                                  << (a_signed ? " int8" : " uint8") << " a_zero " << a_zero);
  const std::vector<int8_t> b =
      few_large_weights ? int8_gemm_few_large_weights(rng, k * n) : int8_gemm_weights(rng, k * n);
  const std::vector<uint8_t> a =
      int8_gemm_activations(rng, rows * k, a_signed, a_zero, near_zero_point);
  const Int8Gemm gemm(b.data(), k, n, b_zero);
  std::vector<int64_t> scratch(static_cast<size_t>(gemm.scratch_bytes(rows, 2) / 8 + 1));
  const std::vector<int32_t> expected =
      int8_gemm_expected(a, a_signed, a_zero, b, b_zero, rows, k, n);
  for (const int threads : {1, 2}) {
    std::vector<int32_t> c(static_cast<size_t>(rows * n), -1);
    gemm.multiply(a.data(), a_signed, a_zero, rows, c.data(), nullptr, scratch.data(), threads);
    ASSERT_EQ(c, expected) << threads << " threads";
  }
  // The float32 output: float(sum) · scale (+ bias), rounded at each step.
  std::vector<float> scale(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
  for (float& s : scale) s = float(random_int(rng, 1, 1000)) / 7919.0f;
  for (float& v : bias) v = float(random_int(rng, -500, 500)) / 37.0f;
  Int8GemmFloatOutput out;
  out.scale = scale.data();
  out.scale_per_column = trial % 2 == 0;
  out.bias = trial % 4 < 2 ? bias.data() : nullptr;
  std::vector<float> y(static_cast<size_t>(rows * n));
  gemm.multiply(a.data(), a_signed, a_zero, rows, y.data(), &out, scratch.data(), 2);
  for (int64_t i = 0; i < rows * n; ++i) {
    const int64_t j = i % n;
    volatile float product =
        float(expected[size_t(i)]) * scale[size_t(out.scale_per_column ? j : 0)];
    float v = product;
    if (out.bias) v += bias[size_t(j)];
    ASSERT_EQ(y[size_t(i)], v) << "element " << i;
  }
  // The 8-bit output: the sums (plus an int32 bias) requantized in the registers as
  // ops::requantize does it, on every pass count and partial panel; the sums buffer between
  // passes.
  // The float32 path (multipliers from 3.3e-5, the sums' true bound), or the double path (a bound
  // past int32 rules the float32 path out).
  const bool float_path = trial % 4 == 1 || trial % 4 == 2;
  std::vector<float> multipliers(static_cast<size_t>(n));
  std::vector<int32_t> int_bias(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    multipliers[size_t(j)] = float(random_int(rng, float_path ? 100 : 1, 1000)) / 3.0e6f;
    int_bias[size_t(j)] = int32_t(random_int(rng, -100000, 100000));
  }
  const bool with_bias = trial % 4 < 2;
  const kernels::cpu::Int8RequantizationValues values(
      multipliers, with_bias ? int_bias : std::vector<int32_t>{}, trial % 2 ? -7 : 121,
      trial % 2 == 1, float_path ? double(k) * 255 * 255 : 1e10);
  ASSERT_EQ(values.float_path(), float_path);
  const kernels::cpu::Int8Requantization q = values.get();
  std::vector<int32_t> sums(static_cast<size_t>(rows * n));
  for (const int threads : {1, 2}) {
    std::vector<uint8_t> bytes(static_cast<size_t>(rows * n), 0xAB);
    gemm.multiply_requantized(a.data(), a_signed, a_zero, rows, q, bytes.data(), sums.data(),
                              scratch.data(), threads);
    for (int64_t i = 0; i < rows * n; ++i) {
      const int64_t j = i % n;
      const double sum =
          double(expected[size_t(i)]) + (with_bias ? double(int_bias[size_t(j)]) : 0.0);
      const float m = float(multipliers[size_t(j)]);
      const int want = q.y_signed ? int(ops::requantize<int8_t>(sum, m, q.zero_point))
                                  : int(ops::requantize<uint8_t>(sum, m, q.zero_point));
      const int got = q.y_signed ? int(int8_t(bytes[size_t(i)])) : int(bytes[size_t(i)]);
      ASSERT_EQ(got, want) << "element " << i << ", " << threads << " threads";
    }
  }
}

TEST(Int8Gemm, EqualsExactSumsOnRandomShapesZeroPointsAndOverflowingWeights) {
  STRATA_NEEDS_INT8_GEMM();
  std::mt19937 rng(71);
  for (int trial = 0; trial < 60; ++trial) expect_int8_gemm_exact(rng, trial, trial >= 54, false);
}

// The byte kernel (B without zero points, few of A's values far from its zero point): A's bytes
// clipped, the residuals added on the last pass.
TEST(Int8Gemm, ClippedBytesAndSparseResidualsAreExact) {
  STRATA_NEEDS_INT8_GEMM();
  std::mt19937 rng(72);
  for (int trial = 0; trial < 60; ++trial) {
    if (trial % 3 != 0) continue;  // B without zero points
    expect_int8_gemm_exact(rng, trial, trial >= 45, true);
  }
}

// The byte kernel on A's whole bytes (B's few pairs that could saturate cut, their excess fixed
// after): A in place (uint8, k a multiple of 4) or copied, on every pass count.
TEST(Int8Gemm, WholeBytesWithWeightFixesAreExact) {
  STRATA_NEEDS_INT8_GEMM();
  std::mt19937 rng(73);
  for (int trial = 0; trial < 60; ++trial) {
    if (trial % 3 != 0) continue;  // B without zero points
    expect_int8_gemm_exact(rng, trial, trial >= 45, trial % 4 < 2, true);
  }
}

// The byte kernel's extremes: clipped bytes of 128 times -128 twice (-32768, the least int16) and
// times 127, residuals of 127 above and below, on both sides of every pair.
TEST(Int8Gemm, ClippedBytesAtTheirLimitsAreExact) {
  STRATA_NEEDS_INT8_GEMM();
  const int64_t k = 64, n = 16, rows = 4;
  for (const int32_t zero : {0, 64, 128, 191, 255}) {
    const int32_t low = std::clamp(zero - 64, 0, 127);
    for (const int8_t w : {int8_t(-128), int8_t(127)}) {
      const std::vector<int8_t> b(static_cast<size_t>(k * n), w);
      std::vector<uint8_t> a(static_cast<size_t>(rows * k));
      for (int64_t i = 0; i < rows * k; ++i)
        a[size_t(i)] = i % 37 == 0 ? uint8_t(i % 2 ? 255 : 0) : uint8_t(low + (i % 5 ? 128 : 0));
      const Int8Gemm gemm(b.data(), k, n, {});
      std::vector<int64_t> scratch(static_cast<size_t>(gemm.scratch_bytes(rows, 1) / 8 + 1));
      std::vector<int32_t> c(static_cast<size_t>(rows * n));
      gemm.multiply(a.data(), false, zero, rows, c.data(), nullptr, scratch.data(), 1);
      EXPECT_EQ(c, int8_gemm_expected(a, false, zero, b, {}, rows, k, n))
          << "zero point " << zero << ", weights " << int(w);
    }
  }
}

// 255 · 127 + 255 · 127 > 2^15: a column of 127s times a row of 255s, and the most negative case.
TEST(Int8Gemm, SumsThatSaturateSixteenBitsAreExact) {
  STRATA_NEEDS_INT8_GEMM();
  const int64_t k = 3072, n = 17;
  for (const int8_t w : {int8_t(127), int8_t(-128)}) {
    const std::vector<int8_t> b(static_cast<size_t>(k * n), w);
    const std::vector<uint8_t> a(static_cast<size_t>(2 * k), 255);
    const Int8Gemm gemm(b.data(), k, n, {});
    std::vector<int64_t> scratch(static_cast<size_t>(gemm.scratch_bytes(2, 1) / 8 + 1));
    std::vector<int32_t> c(static_cast<size_t>(2 * n));
    gemm.multiply(a.data(), false, 0, 2, c.data(), nullptr, scratch.data(), 1);
    for (const int32_t v : c) EXPECT_EQ(v, int32_t(255 * int64_t(w) * k));
  }
}

// A graph of one MatMulInteger (or strata's MatMulIntegerToFloat) with constant weights b.
ir::Graph int8_gemm_graph(bool to_float, DType a_type, const std::vector<int64_t>& a_shape,
                          const Tensor& b, const Tensor& b_zero, bool scale_per_column, bool bias) {
  GraphBuilder g(13);
  g.input("a", a_shape, a_type);
  g.input("a_zp", {}, a_type);
  g.constant("b", b);
  g.constant("b_zp", b_zero);
  const int64_t n = b.shape()[1];
  if (!to_float) {
    g.node("MatMulInteger", {"a", "b", "a_zp", "b_zp"}, {"y"});
  } else {
    g.input("scale", scale_per_column ? std::vector<int64_t>{n} : std::vector<int64_t>{});
    if (bias) {
      std::vector<float> values(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) values[size_t(j)] = float(j % 7) * 0.37f - 1.1f;
      g.constant("bias", Tensor::from<float>({n}, values));
    }
    g.node("MatMulIntegerToFloat", {"a", "b", "a_zp", "b_zp", "scale", bias ? "bias" : ""}, {"y"},
           std::string(ops::kStrataDomain));
  }
  g.output("y");
  return g.build();
}

Tensor int8_gemm_tensor(std::mt19937& rng, DType type, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(type, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<uint8_t*>(t.raw())[i] = uint8_t(random_int(rng, 0, 255));
  return t;
}

TEST(Int8MatMulKernel, EqualsTheReferenceWhereOneDnnWouldSaturate) {
  STRATA_NEEDS_INT8_GEMM();
  std::mt19937 rng(72);
  for (int trial = 0; trial < 16; ++trial) {
    const bool to_float = trial % 2 == 0;
    const DType a_type = trial % 4 < 2 ? DType::kU8 : DType::kI8;
    const int64_t batch = random_int(rng, 1, 3), m = random_int(rng, 1, 14);
    const int64_t k = random_int(rng, 1, 300), n = random_int(rng, 1, 50);
    const bool per_column = trial % 8 < 4, bias = trial % 3 != 0;
    const bool b_zero_per_column = trial % 5 == 0;
    SCOPED_TRACE(testing::Message()
                 << "trial " << trial << ": " << batch << "×" << m << "×" << k << "×" << n);
    const std::vector<int8_t> w = int8_gemm_weights(rng, k * n);
    const Tensor b = Tensor::from<int8_t>({k, n}, w);
    Tensor b_zero = Tensor::zeros(
        DType::kI8, b_zero_per_column ? std::vector<int64_t>{n} : std::vector<int64_t>{});
    if (trial % 6 == 5) b_zero.data<int8_t>()[0] = -3;
    const ir::Graph graph =
        int8_gemm_graph(to_float, a_type, {batch, m, k}, b, b_zero, per_column, bias);
    std::vector<Tensor> inputs = {int8_gemm_tensor(rng, a_type, {batch, m, k}),
                                  int8_gemm_tensor(rng, a_type, {})};
    if (to_float) {
      std::vector<float> scales(per_column ? size_t(n) : 1);
      for (float& s : scales) s = float(random_int(rng, 1, 999)) / 65537.0f;
      inputs.push_back(per_column ? Tensor::from<float>({n}, scales)
                                  : Tensor::from<float>({}, scales));
    }
    runtime::SessionOptions fast, reference;
    fast.threads = 1 + trial % 2;
    fast.single_thread_flops = fast.single_thread_bytes = 0;
    reference.fast_kernels = false;
    const SessionResult f = run_session(graph, inputs, fast);
    const SessionResult r = run_session(graph, inputs, reference);
    const runtime::Comparison c = runtime::compare(f.outputs[0], r.outputs[0], {0, 0});
    EXPECT_TRUE(c.ok) << c.problem;
    ASSERT_EQ(f.steps.size(), 1u);
    // With VNNI oneDNN is exact and keeps the products without weight zero points.
    if (kernels::int8_product_problem(b, 1, a_type).empty() && trial % 6 != 5) continue;
    EXPECT_EQ(f.steps[0].kernel, "cpu:int8_gemm:avx2");
    EXPECT_NE(f.steps[0].reason.find(std::string("exact int8 GEMM (") +
                                     kernels::cpu::kInt8GemmMethod + "): "),
              std::string::npos)
        << f.steps[0].reason;
  }
}

// QLinearMatMul and strata's QLinearGemm (int32 bias): the exact sums requantized as the
// reference does it (float32 multiplier applied in double, ties to even, saturation), so equal.
TEST(Int8MatMulKernel, QLinearProductsEqualTheReference) {
  STRATA_NEEDS_INT8_GEMM();
  std::mt19937 rng(74);
  for (int trial = 0; trial < 12; ++trial) {
    const bool gemm = trial % 2 == 1, a_signed = trial % 4 >= 2, y_signed = trial % 3 == 0;
    const bool per_column = trial % 5 < 3;
    const DType at = a_signed ? DType::kI8 : DType::kU8;
    const int64_t m = random_int(rng, 1, 30), k = random_int(rng, 1, 260),
                  n = random_int(rng, 1, 40);
    SCOPED_TRACE(testing::Message() << "trial " << trial << ": " << m << "×" << k << "×" << n);
    GraphBuilder g(13);
    g.input("a", {m, k}, at);
    g.constant("a_scale", Tensor::from<float>({}, {0.02f}));
    g.constant("a_zp", a_signed ? Tensor::from<int8_t>({}, {int8_t(random_int(rng, -20, 20))})
                                : Tensor::from<uint8_t>({}, {uint8_t(random_int(rng, 100, 150))}));
    g.constant("b", Tensor::from<int8_t>({k, n}, int8_gemm_weights(rng, k * n)));
    std::vector<float> b_scales(per_column ? static_cast<size_t>(n) : 1);
    for (float& v : b_scales) v = 0.003f + 0.0007f * float(random_int(rng, 0, 9));
    g.constant("b_scale",
               per_column ? Tensor::from<float>({n}, b_scales) : Tensor::from<float>({}, b_scales));
    g.constant("b_zp", Tensor::zeros(DType::kI8, {}));
    // About 30 output units per standard deviation of the sums.
    g.constant("y_scale", Tensor::from<float>(
                              {}, {float(0.02 * 0.005 * 110 * 90 * std::sqrt(double(k)) / 30)}));
    g.constant("y_zp", y_signed ? Tensor::from<int8_t>({}, {int8_t(-5)})
                                : Tensor::from<uint8_t>({}, {uint8_t(128)}));
    std::vector<std::string> inputs = {"a",       "a_scale", "a_zp",    "b",
                                       "b_scale", "b_zp",    "y_scale", "y_zp"};
    if (gemm) {
      std::vector<int32_t> bias(static_cast<size_t>(n));
      for (int32_t& v : bias) v = int32_t(random_int(rng, -30000, 30000));
      g.constant("bias", Tensor::from<int32_t>({n}, bias));
      inputs.push_back("bias");
      g.node("QLinearGemm", inputs, {"y"}, std::string(ops::kStrataDomain));
    } else {
      g.node("QLinearMatMul", inputs, {"y"});
    }
    g.output("y");
    const ir::Graph graph = g.build();
    const Tensor a = int8_gemm_tensor(rng, at, {m, k});
    runtime::SessionOptions fast, reference;
    fast.threads = 2;
    fast.single_thread_flops = fast.single_thread_bytes = 0;
    reference.fast_kernels = false;
    const SessionResult f = run_session(graph, {a}, fast);
    const SessionResult r = run_session(graph, {a}, reference);
    EXPECT_EQ(f.outputs[0].to_double(), r.outputs[0].to_double());
    if (kernels::int8_product_problem(*graph.values[size_t(graph.find_value("b"))].constant, 1, at)
            .empty())
      continue;  // VNNI: oneDNN's
    EXPECT_EQ(f.steps[0].kernel, "cpu:int8_gemm:avx2") << f.steps[0].reason;
  }
}

// Weights whose pairs cannot overflow (|w| ≤ 64) with uint8 A stay with oneDNN, which is exact
// for them; without AVX2 (the SIMD ceiling lowered) the family declines and the reference kernel
// computes the products that oneDNN would saturate.
TEST(Int8MatMulKernel, LeavesExactCasesToOneDnnAndDeclinesWithoutAvx2) {
  std::mt19937 rng(73);
  const int64_t k = 40, n = 24;
  std::vector<int8_t> small(static_cast<size_t>(k * n));
  for (int8_t& v : small) v = int8_t(random_int(rng, -64, 64));
  const Tensor b_small = Tensor::from<int8_t>({k, n}, small);
  const Tensor b_large = Tensor::from<int8_t>({k, n}, int8_gemm_weights(rng, k * n));
  const Tensor b_zero = Tensor::zeros(DType::kI8, {});
  const Tensor a = int8_gemm_tensor(rng, DType::kU8, {3, k});
  const Tensor a_zp = Tensor::from<uint8_t>({}, {uint8_t(128)});
  runtime::SessionOptions fast, reference;
  reference.fast_kernels = false;
  for (const bool large : {false, true}) {
    const Tensor& b = large ? b_large : b_small;
    const bool inexact = !kernels::int8_product_problem(b, 1, DType::kU8).empty();
    const ir::Graph graph = int8_gemm_graph(false, DType::kU8, {3, k}, b, b_zero, false, false);
    for (const kernels::cpu::Simd level : simd_levels_here()) {
      SCOPED_TRACE(testing::Message() << (large ? "large" : "small") << " weights, "
                                      << kernels::cpu::simd_name(level));
      const SimdCeiling ceiling(level);
      const SessionResult f = run_session(graph, {a, a_zp}, fast);
      const SessionResult r = run_session(graph, {a, a_zp}, reference);
      EXPECT_TRUE(runtime::compare(f.outputs[0], r.outputs[0], {0, 0}).ok);
      const std::string& kernel = f.steps[0].kernel;
      if (!inexact)
        EXPECT_EQ(kernel.rfind("onednn:", 0), 0u) << kernel;
      else if (level >= kernels::cpu::Simd::kAvx2)
        EXPECT_EQ(kernel, "cpu:int8_gemm:avx2");
      else
        EXPECT_EQ(kernel, "reference") << f.steps[0].reason;
    }
  }
}

}  // namespace
}  // namespace strata::test
