// The int8 fast kernels against the reference kernels: oneDNN's int8 convolution for QLinearConv
// (src/kernels/onednn/qlinear_conv.cpp) on random shapes, zero points and scales, and strata's
// per-tensor QuantizeLinear/DequantizeLinear (src/kernels/cpu/quantize.cpp) on ties, saturation
// and vector tails.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_products.h"
#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

template <class T>
Tensor random_integers(std::mt19937& rng, DType dtype, const std::vector<int64_t>& shape, int lo,
                       int hi) {
  Tensor t = Tensor::zeros(dtype, shape);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(dist(rng));
  return t;
}

// Integer outputs: at most one unit apart (the requantization multiplies in float32 in oneDNN and
// in double in the reference, so a value at a rounding tie may land on either side), and such
// differences rare. Returns how many differ.
int64_t expect_within_one(const Tensor& fast, const Tensor& reference) {
  EXPECT_EQ(fast.shape(), reference.shape());
  const std::vector<double> a = fast.to_double(), b = reference.to_double();
  int64_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(std::abs(a[i] - b[i]), 1) << "element " << i;
    differ += a[i] != b[i];
  }
  EXPECT_LE(differ, std::max<int64_t>(2, int64_t(a.size()) / 100));
  return differ;
}

// The kernel an int8 product with weights w (output channels along `axis`) and activations of
// type x runs on here: oneDNN's, or where oneDNN would not be exact on this CPU (no VNNI) strata's
// exact kernel `exact` on AVX2 (cpu:int8_gemm:avx2 for the matrix products,
// cpu:int8_conv:avx2 for convolutions of group 1, cpu:int8_depthwise_conv:avx2 for depthwise ones;
// nullptr: none) or else the reference kernel,
// the step saying why.
void expect_int8_kernel(const runtime::StepInfo& step, const Tensor& w, int64_t axis, DType x,
                        const char* exact = nullptr) {
  if (kernels::int8_product_problem(w, axis, x).empty()) {
    EXPECT_EQ(step.kernel.rfind("onednn:", 0), 0u) << step.kernel;
    // oneDNN 2.6 runs grouped int8 convolutions of a few channels per group with AVX-512 only
    // (elsewhere on ref_int8, which the slow-path warning names).
    if (__builtin_cpu_supports("avx512f")) {
      EXPECT_EQ(step.kernel.find(":ref"), std::string::npos) << step.kernel;
    }
  } else {
    EXPECT_EQ(step.kernel,
              exact && kernels::cpu::int8_gemm_available() ? std::string(exact) : "reference");
    EXPECT_NE(step.reason.find("no VNNI"), std::string::npos) << step.reason;
  }
}

// Without VNNI, oneDNN's uint8 × int8 products are summed in pairs in 16 bits: weights whose two
// largest of one sign in an output channel reach more than 128 together could saturate, and
// int8 activations lose a bit of every weight. With VNNI every weight is exact.
TEST(Int8Products, WithoutVnniOnlyWeightsThatCannotSaturateAreExact) {
  using kernels::int8_product_problem;
  // [2, 3] weights, output channels along axis 1: column 1 holds 100 and 28 (128: exact).
  const Tensor exact = Tensor::from<int8_t>({2, 3}, {127, 100, -64, 0, 28, -64});
  EXPECT_EQ(int8_product_problem(exact, 1, DType::kU8, false), "");
  EXPECT_NE(int8_product_problem(exact, 1, DType::kI8, false).find("no VNNI"), std::string::npos);
  EXPECT_EQ(int8_product_problem(exact, 1, DType::kI8, true), "");
  // Column 2's two negative weights reach 129; a positive and a negative weight never add up.
  const Tensor saturating = Tensor::from<int8_t>({2, 3}, {127, -127, -64, 0, 127, -65});
  const std::string why = int8_product_problem(saturating, 1, DType::kU8, false);
  EXPECT_NE(why.find("output channel 2 reach 129"), std::string::npos) << why;
  EXPECT_EQ(int8_product_problem(saturating, 1, DType::kU8, true), "");
  // Along axis 0 (a convolution's [M, C, kh, kw]) the same values are 2 channels of 3.
  EXPECT_NE(int8_product_problem(saturating, 0, DType::kU8, false).find("channel 0 reach 191"),
            std::string::npos);
}

// The rule on random weights, against the two largest magnitudes of each sign found by sorting:
// a convolution's [M, C, kh, kw] (channels along axis 0) and a matmul's [k, n] (axis 1), with
// values drawn wide and narrow so that both answers occur.
TEST(Int8Products, AgreesWithSortingOnRandomWeights) {
  using kernels::int8_product_problem;
  std::mt19937 rng(23);
  for (int trial = 0; trial < 200; ++trial) {
    const bool matmul = trial % 2 == 1;
    const std::vector<int64_t> shape =
        matmul ? std::vector<int64_t>{random_int(rng, 1, 40), random_int(rng, 1, 40)}
               : std::vector<int64_t>{random_int(rng, 1, 6), random_int(rng, 1, 5),
                                      random_int(rng, 1, 3), random_int(rng, 1, 3)};
    const int wide = int(random_int(rng, 40, 128));
    const Tensor w = random_integers<int8_t>(rng, DType::kI8, shape, -wide, std::min(wide, 127));
    const int64_t axis = matmul ? 1 : 0, channels = shape[size_t(axis)];
    int64_t worst_channel = -1, worst = 0;
    for (int64_t c = 0; c < channels && worst_channel < 0; ++c) {
      std::vector<int> positive = {0, 0}, negative = {0, 0};
      for (int64_t i = 0; i < w.numel(); ++i) {
        const int64_t channel = matmul ? i % shape[1] : i / (w.numel() / shape[0]);
        const int v = w.data<int8_t>()[i];
        if (channel == c) (v >= 0 ? positive : negative).push_back(std::abs(v));
      }
      std::sort(positive.rbegin(), positive.rend());
      std::sort(negative.rbegin(), negative.rend());
      const int64_t sum = std::max(positive[0] + positive[1], negative[0] + negative[1]);
      if (sum > 128) {
        worst_channel = c;
        worst = sum;
      }
    }
    const std::string why = int8_product_problem(w, axis, DType::kU8, false);
    SCOPED_TRACE(testing::Message() << "trial " << trial << ": " << why);
    if (worst_channel < 0) {
      EXPECT_EQ(why, "");
    } else {
      EXPECT_NE(why.find("two of output channel " + std::to_string(worst_channel) + " reach " +
                         std::to_string(worst) + " > 128"),
                std::string::npos);
    }
  }
}

TEST(QLinearConvKernel, MatchesTheReferenceOnRandomConvolutions) {
  std::mt19937 rng(13);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 24; ++trial) {
    const bool x_signed = trial % 3 == 2, y_signed = trial % 4 == 3;
    const bool depthwise = trial % 5 == 0, per_channel = trial % 2 == 0, bias = trial % 3 != 1;
    const int64_t group = depthwise ? 0 : pick(1, 2);
    const int64_t c = depthwise ? pick(3, 20) : group * pick(1, 12);
    const int64_t g = depthwise ? c : group;
    const int64_t m = g * pick(1, depthwise ? 1 : 8);
    const int64_t k = pick(1, 3), stride = pick(1, 2), pad = pick(0, 1), size = pick(k + 2, 15);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": c" + std::to_string(c) + " m" +
                 std::to_string(m) + " group" + std::to_string(g) + " k" + std::to_string(k) +
                 " stride" + std::to_string(stride) + " pad" + std::to_string(pad));
    const DType xt = x_signed ? DType::kI8 : DType::kU8;
    GraphBuilder b(13);
    b.input("x", {pick(1, 2), c, size, size + 1}, xt);
    const float x_scale = 0.02f, w_base = 0.01f;
    b.constant("x_scale", Tensor::from<float>({}, {x_scale}));
    b.constant("x_zp", x_signed ? Tensor::from<int8_t>({}, {int8_t(pick(-20, 20))})
                                : Tensor::from<uint8_t>({}, {uint8_t(pick(100, 150))}));
    // Odd trials: 7-bit weights (as quantizers write them for CPUs without VNNI), which oneDNN's
    // int8 kernels take on every CPU.
    const int w_max = trial % 2 == 1 ? 64 : 127;
    const Tensor w = random_integers<int8_t>(rng, DType::kI8, {m, c / g, k, k}, -w_max, w_max);
    b.constant("w", w);
    std::vector<float> w_scales(per_channel ? size_t(m) : 1);
    for (float& s : w_scales) s = w_base * float(pick(5, 20)) / 10;
    b.constant("w_scale", per_channel ? Tensor::from<float>({m}, w_scales)
                                      : Tensor::from<float>({}, w_scales));
    b.constant("w_zp", Tensor::zeros(DType::kI8, per_channel ? std::vector<int64_t>{m}
                                                             : std::vector<int64_t>{}));
    // About 40 output units per standard deviation of the integer sums.
    const double sums_sd = 74.0 * 73.0 * std::sqrt(double(c / g * k * k));
    b.constant("y_scale", Tensor::from<float>({}, {float(x_scale * w_base * sums_sd / 40)}));
    b.constant("y_zp", y_signed ? Tensor::from<int8_t>({}, {int8_t(pick(-10, 10))})
                                : Tensor::from<uint8_t>({}, {uint8_t(pick(100, 150))}));
    if (bias) b.constant("B", random_integers<int32_t>(rng, DType::kI32, {m}, -20000, 20000));
    ir::Node& n =
        b.node("QLinearConv",
               {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", bias ? "B" : ""},
               {"y"});
    n.attributes["group"] = attr_int(g);
    n.attributes["strides"] = attr_ints({stride, stride});
    n.attributes["pads"] = attr_ints({pad, pad, pad, pad});
    b.output("y");
    const ir::Graph graph = b.build();
    const Tensor x =
        x_signed ? random_integers<int8_t>(rng, xt, graph.values[0].shape.values(), -128, 127)
                 : random_integers<uint8_t>(rng, xt, graph.values[0].shape.values(), 0, 255);
    runtime::SessionOptions fast, reference;
    reference.fast_kernels = false;
    const SessionResult a = run_session(graph, {x}, fast);
    const SessionResult r = run_session(graph, {x}, reference);
    ASSERT_EQ(a.outputs.size(), 1u);
    expect_within_one(a.outputs[0], r.outputs[0]);
    ASSERT_EQ(a.steps.size(), 1u);
    // Group 1: the exact int8 convolution's; depthwise (one input and one output channel a
    // group): the exact depthwise convolution's.
    const char* exact = g == 1                 ? "cpu:int8_conv:avx2"
                        : c / g == 1 && m == g ? "cpu:int8_depthwise_conv:avx2"
                                               : nullptr;
    expect_int8_kernel(a.steps[0], w, 0, xt, exact);
  }
}

// X's zero point folds into the bias only where it is exact: windows that read no padding, and
// sums below 2^24 (with weights of ±127 over 1,024 inputs, 255 · 127 · 1,024 is past it). Each
// case must match the reference kernel either way, and say when it folded.
TEST(QLinearConvKernel, FoldsXZeroPointIntoTheBiasOnlyWhereExact) {
  struct Case {
    int64_t channels, kernel, pad;
    bool bias, large_weights, folds;
  };
  const Case cases[] = {{64, 1, 0, true, false, true},   {48, 1, 0, false, false, true},
                        {32, 3, 0, true, false, true},   {32, 3, 1, true, false, false},
                        {1024, 1, 0, true, true, false}, {1024, 1, 0, false, false, true}};
  std::mt19937 rng(29);
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt::format("c{} k{} pad{} bias {} large {}", c.channels, c.kernel, c.pad, c.bias,
                             c.large_weights));
    const int64_t m = 24;
    GraphBuilder b(29);
    b.input("x", {1, c.channels, 9, 9}, DType::kU8);
    b.constant("x_scale", Tensor::from<float>({}, {0.02f}));
    b.constant("x_zp", Tensor::from<uint8_t>({}, {uint8_t(131)}));
    const int w_max = c.large_weights ? 127 : 8;
    Tensor w = random_integers<int8_t>(rng, DType::kI8, {m, c.channels, c.kernel, c.kernel}, -w_max,
                                       w_max);
    if (c.large_weights)  // every weight ±127
      for (int64_t i = 0; i < w.numel(); ++i)
        w.data<int8_t>()[i] = w.data<int8_t>()[i] < 0 ? -127 : 127;
    b.constant("w", w);
    b.constant("w_scale", Tensor::from<float>({}, {0.01f}));
    b.constant("w_zp", Tensor::zeros(DType::kI8, {}));
    const double sums_sd = 74.0 * w_max * 0.6 * std::sqrt(double(c.channels * c.kernel * c.kernel));
    b.constant("y_scale", Tensor::from<float>({}, {float(0.02 * 0.01 * sums_sd / 40)}));
    b.constant("y_zp", Tensor::from<uint8_t>({}, {uint8_t(117)}));
    if (c.bias) b.constant("B", random_integers<int32_t>(rng, DType::kI32, {m}, -20000, 20000));
    ir::Node& n = b.node(
        "QLinearConv",
        {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", c.bias ? "B" : ""},
        {"y"});
    n.attributes["pads"] = attr_ints({c.pad, c.pad, c.pad, c.pad});
    b.output("y");
    const ir::Graph graph = b.build();
    const Tensor x =
        random_integers<uint8_t>(rng, DType::kU8, graph.values[0].shape.values(), 0, 255);
    runtime::SessionOptions fast, reference;
    reference.fast_kernels = false;
    const SessionResult a = run_session(graph, {x}, fast);
    const SessionResult r = run_session(graph, {x}, reference);
    expect_within_one(a.outputs[0], r.outputs[0]);
    ASSERT_EQ(a.steps.size(), 1u);
    if (a.steps[0].kernel.rfind("onednn:", 0) != 0) continue;  // no VNNI: strata's exact kernel
    EXPECT_EQ(a.steps[0].reason.find("zero point folded into the bias") != std::string::npos,
              c.folds)
        << a.steps[0].reason;
  }
}

// Sums whose scaled value is an exact half (multiplier 0.5) and an odd output zero point: the
// spec rounds half to even before adding the zero point (round(-8.5) + 127 = 119), where adding
// first would round 118.5 to 118. Both kernels of QLinearConv and QLinearMatMul must give the
// spec's value for every sum from -128 to 127.
std::vector<double> ties_rounded_before_the_zero_point() {
  std::vector<double> expected;
  for (int sum = -128; sum < 128; ++sum)
    expected.push_back(std::clamp(std::nearbyint(sum * 0.5) + 127, 0.0, 255.0));
  return expected;
}

Tensor every_int8_value(const std::vector<int64_t>& shape) {
  Tensor x = Tensor::zeros(DType::kI8, shape);
  for (int i = 0; i < 256; ++i) x.data<int8_t>()[i] = int8_t(i - 128);
  return x;
}

void add_tie_scales(GraphBuilder& b) {
  b.constant("x_scale", Tensor::from<float>({}, {1.0f}));
  b.constant("x_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("w_scale", Tensor::from<float>({}, {1.0f}));
  b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("y_scale", Tensor::from<float>({}, {2.0f}));
  b.constant("y_zp", Tensor::from<uint8_t>({}, {uint8_t(127)}));
}

// w_axis 1: a QLinearMatMul, which strata's exact int8 GEMM takes where oneDNN would not be exact;
// 0: a QLinearConv, which strata's exact int8 convolution takes.
void expect_ties_rounded_before_the_zero_point(const ir::Graph& graph, const Tensor& x,
                                               int64_t w_axis) {
  runtime::SessionOptions fast, reference;
  reference.fast_kernels = false;
  const SessionResult f = run_session(graph, {x}, fast);
  const SessionResult r = run_session(graph, {x}, reference);
  expect_int8_kernel(f.steps[0], *graph.values[size_t(graph.find_value("w"))].constant, w_axis,
                     DType::kI8, w_axis == 1 ? "cpu:int8_gemm:avx2" : "cpu:int8_conv:avx2");
  EXPECT_EQ(f.outputs[0].to_double(), ties_rounded_before_the_zero_point());
  EXPECT_EQ(r.outputs[0].to_double(), ties_rounded_before_the_zero_point());
}

TEST(QLinearConvKernel, TiesRoundBeforeTheZeroPointIsAdded) {
  GraphBuilder b(13);
  b.input("x", {1, 1, 1, 256}, DType::kI8);
  add_tie_scales(b);
  b.constant("w", Tensor::from<int8_t>({1, 1, 1, 1}, {int8_t(1)}));
  b.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"});
  b.output("y");
  expect_ties_rounded_before_the_zero_point(b.build(), every_int8_value({1, 1, 1, 256}), 0);
}

TEST(QLinearMatMulKernel, TiesRoundBeforeTheZeroPointIsAdded) {
  GraphBuilder b(13);
  b.input("x", {256, 1}, DType::kI8);
  add_tie_scales(b);
  b.constant("w", Tensor::from<int8_t>({1, 1}, {int8_t(1)}));
  b.node("QLinearMatMul", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"},
         {"y"});
  b.output("y");
  expect_ties_rounded_before_the_zero_point(b.build(), every_int8_value({256, 1}), 1);
}

// strata's QLinearAdd (a residual add of a QDQ graph): the one-pass kernel against the reference
// kernel, equal to the bit, on vector tails, sizes shared between two threads, every mix of 8-bit
// types and values that saturate.
TEST(QLinearAddKernel, EqualsTheReferenceOnEverySizeAndType) {
  std::mt19937 rng(21);
  const std::pair<DType, DType> types[] = {
      {DType::kU8, DType::kU8}, {DType::kI8, DType::kU8}, {DType::kU8, DType::kI8}};
  for (const kernels::cpu::Simd simd : simd_levels_here()) {
    const SimdCeiling ceiling(simd);
    for (const int64_t size : {1, 7, 15, 16, 17, 1000, 300001}) {
      for (const auto& [operand, result] : types) {
        SCOPED_TRACE(std::string(kernels::cpu::simd_name(simd)) + ", " + std::to_string(size) +
                     " values, " + std::string(dtype_name(operand)) + " to " +
                     std::string(dtype_name(result)));
        const auto zero_point = [](DType t, int value) {
          return t == DType::kU8 ? Tensor::from<uint8_t>({}, {uint8_t(value + 128)})
                                 : Tensor::from<int8_t>({}, {int8_t(value)});
        };
        GraphBuilder b(13);
        b.input("a", {size}, operand);
        b.input("b", {size}, DType::kU8);
        b.constant("a_scale", Tensor::from<float>({}, {0.05f}));
        b.constant("a_zp", zero_point(operand, -9));
        b.constant("b_scale", Tensor::from<float>({}, {0.03f}));
        b.constant("b_zp", Tensor::from<uint8_t>({}, {uint8_t(131)}));
        b.constant("c_scale", Tensor::from<float>({}, {0.04f}));
        b.constant("c_zp", zero_point(result, 5));
        b.node("QLinearAdd", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "c_scale", "c_zp"},
               {"c"})
            .domain = "strata";
        b.output("c");
        const ir::Graph graph = b.build();
        const Tensor a = operand == DType::kU8
                             ? random_integers<uint8_t>(rng, operand, {size}, 0, 255)
                             : random_integers<int8_t>(rng, operand, {size}, -128, 127);
        const Tensor bt = random_integers<uint8_t>(rng, DType::kU8, {size}, 0, 255);
        runtime::SessionOptions fast, reference;
        fast.threads = 2;
        reference.fast_kernels = false;
        const SessionResult f = run_session(graph, {a, bt}, fast);
        const SessionResult r = run_session(graph, {a, bt}, reference);
        EXPECT_EQ(f.steps[0].kernel, std::string("cpu:") + kernels::cpu::simd_name(simd));
        EXPECT_EQ(f.outputs[0].to_double(), r.outputs[0].to_double());
      }
    }
  }
}

// The add multiplies by a reciprocal of C's scale only where that was proven at prepare to give
// every pair of 8-bit operands the reference's output: all 65536 pairs, for scales whose nearest
// reciprocal works, scales that need a neighbour of it, and scales no reciprocal serves (these
// keep the division; found by search).
TEST(QLinearAddKernel, MultipliesByAReciprocalOnlyWhereEveryPairKeepsItsOutput) {
  struct Scales {
    float a, b, c, a_zero, b_zero, c_zero;
  };
  std::vector<Scales> cases = {{0x1.dc73a8p-6f, 0x1.85df6p-5f, 0x1.ab456cp-4f, 124, 113, 63},
                               {0x1.e43df8p-4f, 0x1.1a07a8p-3f, 0x1.9efd98p-3f, 93, 136, 133}};
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> scale(0.005f, 0.3f);
  for (int i = 0; i < 24; ++i)
    cases.push_back({scale(rng), scale(rng), scale(rng), float(rng() % 256), float(rng() % 256),
                     float(rng() % 256)});
  std::vector<uint8_t> a(65536), b(65536);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = uint8_t(i / 256);
    b[i] = uint8_t(i % 256);
  }
  const std::vector<Tensor> inputs = {Tensor::from<uint8_t>({65536}, a),
                                      Tensor::from<uint8_t>({65536}, b)};
  int multiplied = 0, divided = 0;
  for (const Scales& s : cases) {
    SCOPED_TRACE(fmt::format("scales {} {} {}, zero points {} {} {}", s.a, s.b, s.c, s.a_zero,
                             s.b_zero, s.c_zero));
    GraphBuilder g(13);
    g.input("a", {65536}, DType::kU8);
    g.input("b", {65536}, DType::kU8);
    g.constant("a_scale", Tensor::from<float>({}, {s.a}));
    g.constant("a_zp", Tensor::from<uint8_t>({}, {uint8_t(s.a_zero)}));
    g.constant("b_scale", Tensor::from<float>({}, {s.b}));
    g.constant("b_zp", Tensor::from<uint8_t>({}, {uint8_t(s.b_zero)}));
    g.constant("c_scale", Tensor::from<float>({}, {s.c}));
    g.constant("c_zp", Tensor::from<uint8_t>({}, {uint8_t(s.c_zero)}));
    g.node("QLinearAdd", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "c_scale", "c_zp"}, {"c"})
        .domain = "strata";
    g.output("c");
    const ir::Graph graph = g.build();
    runtime::SessionOptions fast, reference;
    reference.fast_kernels = false;
    const SessionResult f = run_session(graph, inputs, fast);
    const SessionResult r = run_session(graph, inputs, reference);
    EXPECT_EQ(f.outputs[0].to_double(), r.outputs[0].to_double());
    const bool multiplies = f.steps[0].reason.find("times a reciprocal") != std::string::npos;
    multiplied += multiplies;
    divided += !multiplies;
  }
  EXPECT_GE(multiplied, 20);
  EXPECT_GE(divided, 2);
}

// In a QDQ network the add reads a convolution's channels-last output and another value, and a
// convolution reads its result: it adds in channels-last, and equals the reference (power-of-two
// scales keep the convolutions' requantization exact in both kernel sets).
TEST(QLinearAddKernel, AddsChannelsLastDataBetweenConvolutions) {
  std::mt19937 rng(22);
  GraphBuilder b(13);
  b.input("x", {1, 16, 9, 9}, DType::kU8);
  b.input("skip", {1, 16, 9, 9}, DType::kU8);
  b.constant("x_scale", Tensor::from<float>({}, {0.5f}));
  b.constant("zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  // 7-bit weights: oneDNN's int8 convolutions take them on CPUs without VNNI too.
  b.constant("w", random_integers<int8_t>(rng, DType::kI8, {16, 16, 1, 1}, -64, 64));
  b.constant("w_scale", Tensor::from<float>({}, {0.25f}));
  b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("y_scale", Tensor::from<float>({}, {256.0f}));
  b.constant("out_scale", Tensor::from<float>({}, {16384.0f}));
  b.node("QLinearConv", {"x", "x_scale", "zp", "w", "w_scale", "w_zp", "y_scale", "zp"}, {"conv"});
  b.node("QLinearAdd", {"conv", "y_scale", "zp", "skip", "x_scale", "zp", "y_scale", "zp"}, {"sum"})
      .domain = "strata";
  b.node("QLinearConv", {"sum", "y_scale", "zp", "w", "w_scale", "w_zp", "out_scale", "zp"},
         {"out"});
  b.output("out");
  const ir::Graph graph = b.build();
  const std::vector<Tensor> inputs = {
      random_integers<uint8_t>(rng, DType::kU8, {1, 16, 9, 9}, 0, 255),
      random_integers<uint8_t>(rng, DType::kU8, {1, 16, 9, 9}, 0, 255)};
  runtime::SessionOptions fast, reference;
  fast.layout = kernels::LayoutPolicy::kChannelsLast;
  reference.fast_kernels = false;
  const SessionResult f = run_session(graph, inputs, fast);
  const SessionResult r = run_session(graph, inputs, reference);
  ASSERT_EQ(f.steps.size(), 3u);
  EXPECT_EQ(f.steps[1].kernel.rfind("cpu:", 0), 0u) << f.steps[1].kernel;
  EXPECT_EQ(f.steps[1].layout, "nhwc");
  EXPECT_EQ(f.outputs[0].to_double(), r.outputs[0].to_double());
}

// A zero scale is bad input: the fast kernel leaves the node to the reference kernel, which stops
// naming it.
TEST(QLinearConvKernel, AZeroScaleIsRefusedNamingTheNode) {
  std::mt19937 rng(18);
  GraphBuilder b(13);
  b.input("x", {1, 2, 5, 5}, DType::kU8);
  b.constant("x_scale", Tensor::from<float>({}, {0.0f}));
  b.constant("x_zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  b.constant("w", random_integers<int8_t>(rng, DType::kI8, {3, 2, 3, 3}, -127, 127));
  b.constant("w_scale", Tensor::from<float>({}, {0.01f}));
  b.constant("w_zp", Tensor::zeros(DType::kI8, {}));
  b.constant("y_scale", Tensor::from<float>({}, {0.1f}));
  b.constant("y_zp", Tensor::from<uint8_t>({}, {uint8_t(0)}));
  b.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"});
  b.output("y");
  const ir::Graph graph = b.build();
  try {
    run_session(graph, {random_integers<uint8_t>(rng, DType::kU8, {1, 2, 5, 5}, 0, 255)}, {});
    ADD_FAILURE() << "a zero scale ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("y_node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("x_scale"), std::string::npos) << e.what();
  }
}

TEST(QuantizeKernel, EqualsTheReferenceOnTiesSaturationAndTails) {
  std::mt19937 rng(14);
  for (const kernels::cpu::Simd simd : simd_levels_here()) {
    const SimdCeiling ceiling(simd);
    for (const DType narrow : {DType::kU8, DType::kI8}) {
      for (const int64_t n :
           {int64_t(1), int64_t(7), int64_t(15), int64_t(16), int64_t(1000), int64_t(1007)}) {
        SCOPED_TRACE(std::string(kernels::cpu::simd_name(simd)) + ", " +
                     std::string(dtype_name(narrow)) + " n" + std::to_string(n));
        GraphBuilder b(13);
        b.input("x", {n});
        b.constant("scale", Tensor::from<float>({}, {0.5f}));
        b.constant("zp", narrow == DType::kU8 ? Tensor::from<uint8_t>({}, {uint8_t(128)})
                                              : Tensor::from<int8_t>({}, {int8_t(-3)}));
        b.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"});
        b.node("DequantizeLinear", {"q", "scale", "zp"}, {"y"});
        b.output("q");
        b.output("y");
        const ir::Graph graph = b.build();
        // Quarters: x / 0.5 lands on every half (ties both ways) and whole number; beyond ±100
        // it saturates.
        Tensor x = Tensor::zeros(DType::kF32, {n});
        std::uniform_int_distribution<int> quarters(-600, 600);
        for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = float(quarters(rng)) / 4;
        runtime::SessionOptions fast, reference;
        reference.fast_kernels = false;
        const SessionResult a = run_session(graph, {x}, fast);
        const SessionResult r = run_session(graph, {x}, reference);
        for (size_t o = 0; o < 2; ++o) {
          const runtime::Comparison c = runtime::compare(a.outputs[o], r.outputs[o], {0, 0});
          EXPECT_TRUE(c.ok) << "output " << o << ": " << c.problem;
        }
        for (const runtime::StepInfo& step : a.steps)
          EXPECT_EQ(step.kernel, std::string("cpu:") + kernels::cpu::simd_name(simd));
      }
    }
  }
}

TEST(QuantizeKernel, DynamicQuantizeLinearEqualsTheReference) {
  std::mt19937 rng(15);
  std::uniform_real_distribution<float> dist(-3, 5);
  for (const kernels::cpu::Simd simd : simd_levels_here()) {
    const SimdCeiling ceiling(simd);
    for (const int kind : {0, 1, 2}) {  // mixed signs, all positive, all zero (scale 0)
      for (const int64_t n : {int64_t(7), int64_t(16), int64_t(999)}) {
        SCOPED_TRACE(std::string(kernels::cpu::simd_name(simd)) + ", kind " + std::to_string(kind) +
                     " n" + std::to_string(n));
        GraphBuilder b(13);
        b.input("x", {n});
        b.node("DynamicQuantizeLinear", {"x"}, {"q", "scale", "zp"});
        for (const char* out : {"q", "scale", "zp"}) b.output(out);
        const ir::Graph graph = b.build();
        Tensor x = Tensor::zeros(DType::kF32, {n});
        for (int64_t i = 0; i < n; ++i)
          x.data<float>()[i] = kind == 2 ? 0.f : kind == 1 ? std::abs(dist(rng)) : dist(rng);
        runtime::SessionOptions fast, reference;
        reference.fast_kernels = false;
        const SessionResult a = run_session(graph, {x}, fast);
        const SessionResult r = run_session(graph, {x}, reference);
        for (size_t o = 0; o < 3; ++o) {
          const runtime::Comparison c = runtime::compare(a.outputs[o], r.outputs[o], {0, 0});
          EXPECT_TRUE(c.ok) << "output " << o << ": " << c.problem;
        }
        EXPECT_EQ(a.steps[0].kernel, std::string("cpu:") + kernels::cpu::simd_name(simd));
      }
    }
  }
}

TEST(MatMulIntegerKernel, MatchesTheReferenceWithARunTimeZeroPoint) {
  std::mt19937 rng(16);
  for (const DType a_type : {DType::kU8, DType::kI8}) {
    GraphBuilder b(13);
    b.input("a", {2, 5, 33}, a_type);
    b.input("a_zp", {}, a_type);
    const Tensor weights = random_integers<int8_t>(rng, DType::kI8, {33, 17}, -127, 127);
    b.constant("b", weights);
    b.constant("b_zp", Tensor::zeros(DType::kI8, {}));
    b.node("MatMulInteger", {"a", "b", "a_zp", "b_zp"}, {"y"});
    b.output("y");
    const ir::Graph graph = b.build();
    const bool u8 = a_type == DType::kU8;
    const Tensor a = u8 ? random_integers<uint8_t>(rng, a_type, {2, 5, 33}, 0, 255)
                        : random_integers<int8_t>(rng, a_type, {2, 5, 33}, -128, 127);
    for (const int zp : {0, 7}) {
      const Tensor a_zp = u8 ? Tensor::from<uint8_t>({}, {uint8_t(zp + 120)})
                             : Tensor::from<int8_t>({}, {int8_t(-zp)});
      runtime::SessionOptions fast, reference;
      reference.fast_kernels = false;
      const SessionResult f = run_session(graph, {a, a_zp}, fast);
      const SessionResult r = run_session(graph, {a, a_zp}, reference);
      const runtime::Comparison c = runtime::compare(f.outputs[0], r.outputs[0], {0, 0});
      EXPECT_TRUE(c.ok) << c.problem;  // int32 sums: exact
      expect_int8_kernel(f.steps[0], weights, 1, a_type, "cpu:int8_gemm:avx2");
    }
  }
}

TEST(QLinearMatMulKernel, MatchesTheReference) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 8; ++trial) {
    const bool a_signed = trial % 2 == 1, y_signed = trial % 4 >= 2, per_column = trial < 4;
    SCOPED_TRACE("trial " + std::to_string(trial));
    const DType at = a_signed ? DType::kI8 : DType::kU8;
    const int64_t k = 40 + trial * 7, n = 9 + trial;
    GraphBuilder b(13);
    b.input("a", {2, 3, k}, at);
    b.constant("a_scale", Tensor::from<float>({}, {0.03f}));
    b.constant("a_zp", a_signed ? Tensor::from<int8_t>({}, {int8_t(-4)})
                                : Tensor::from<uint8_t>({}, {uint8_t(131)}));
    const int b_max = trial % 4 == 0 ? 64 : 127;  // 7 bits: oneDNN's kernels on every CPU
    const Tensor weights = random_integers<int8_t>(rng, DType::kI8, {k, n}, -b_max, b_max);
    b.constant("b", weights);
    std::vector<float> b_scales(per_column ? size_t(n) : 1);
    for (size_t j = 0; j < b_scales.size(); ++j) b_scales[j] = 0.004f + 0.001f * float(j % 5);
    b.constant("b_scale",
               per_column ? Tensor::from<float>({n}, b_scales) : Tensor::from<float>({}, b_scales));
    b.constant("b_zp", Tensor::zeros(DType::kI8, per_column ? std::vector<int64_t>{n}
                                                            : std::vector<int64_t>{}));
    // About 40 output units per standard deviation of the sums.
    b.constant("y_scale", Tensor::from<float>(
                              {}, {float(0.03 * 0.005 * 74 * 73 * std::sqrt(double(k)) / 40)}));
    b.constant("y_zp", y_signed ? Tensor::from<int8_t>({}, {int8_t(3)})
                                : Tensor::from<uint8_t>({}, {uint8_t(120)}));
    b.node("QLinearMatMul", {"a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"},
           {"y"});
    b.output("y");
    const ir::Graph graph = b.build();
    const Tensor a = a_signed ? random_integers<int8_t>(rng, at, {2, 3, k}, -128, 127)
                              : random_integers<uint8_t>(rng, at, {2, 3, k}, 0, 255);
    runtime::SessionOptions fast, reference;
    reference.fast_kernels = false;
    const SessionResult f = run_session(graph, {a}, fast);
    const SessionResult r = run_session(graph, {a}, reference);
    expect_within_one(f.outputs[0], r.outputs[0]);
    expect_int8_kernel(f.steps[0], weights, 1, at, "cpu:int8_gemm:avx2");
  }
}

TEST(CastKernel, IntegersToFloatEqualTheReference) {
  std::mt19937 rng(17);
  for (const DType from : {DType::kI32, DType::kI8, DType::kU8}) {
    SCOPED_TRACE(dtype_name(from));
    GraphBuilder b(13);
    b.input("x", {3, 37}, from);
    b.node("Cast", {"x"}, {"y"}).attributes["to"] = attr_int(1);  // FLOAT
    b.output("y");
    const ir::Graph graph = b.build();
    // int32 beyond 2^24, where float32 rounds (to nearest even in both kernels).
    const Tensor x = from == DType::kI32
                         ? random_integers<int32_t>(rng, from, {3, 37}, -2000000000, 2000000000)
                     : from == DType::kI8 ? random_integers<int8_t>(rng, from, {3, 37}, -128, 127)
                                          : random_integers<uint8_t>(rng, from, {3, 37}, 0, 255);
    runtime::SessionOptions fast, reference;
    reference.fast_kernels = false;
    const SessionResult a = run_session(graph, {x}, fast);
    const SessionResult r = run_session(graph, {x}, reference);
    const runtime::Comparison c = runtime::compare(a.outputs[0], r.outputs[0], {0, 0});
    EXPECT_TRUE(c.ok) << c.problem;
    EXPECT_EQ(a.steps[0].kernel.rfind("onednn:", 0), 0u) << a.steps[0].kernel;
  }
}

}  // namespace
}  // namespace strata::test
