// strata's exact int8 convolution (src/kernels/cpu/int8_conv.cpp) against QLinearConv's reference
// kernel, equal to the bit: 1×1, 3×3 padded, strided, 7×7 stride 2 pad 3, dilated, asymmetric
// and 1-D windows, batches, uint8 and int8 X with zero points, weight zero points, per-tensor and
// per-channel scales, with and without bias, weights whose pairs of products overflow 16 bits
// (which oneDNN's kernels saturate without VNNI), blocks of rows shared among threads and k in
// several passes. And the requantization it shares with cpu_int8_matmul (int8_requantize) against
// ops::requantize on ties, saturation and vector tails, in float32 and in double.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_products.h"
#include "kernels/int8_test_util.h"
#include "kernels/kernel_test_util.h"
#include "ops/requantize.h"
#include "profiler/alloc_counter.h"
#include "profiler/slow_paths.h"

namespace strata::test {
namespace {

#define STRATA_NEEDS_EXACT_INT8_CONV()                                                      \
  if (!kernels::cpu::int8_gemm_available())                                                 \
  GTEST_SKIP() << "this CPU has no AVX2: strata's exact int8 convolution is not used (the " \
                  "reference kernel runs them)"

// One convolution's geometry; `one_d`: X is [N, C, W] (the height fields unused).
struct Int8ConvCase {
  int64_t batch, channels, outputs, height, width, kernel_h, kernel_w, stride, dilation;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool one_d = false;
};

TEST(ExactInt8Conv, EqualsTheReferenceBitForBit) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  const std::vector<Int8ConvCase> cases = {
      {1, 16, 24, 9, 11, 1, 1, 1, 1, {0, 0, 0, 0}},       // 1×1: X's rows are A's
      {2, 5, 17, 10, 7, 3, 3, 1, 1, {1, 1, 1, 1}},        // 3×3 pad 1, batch 2
      {1, 8, 33, 13, 12, 3, 3, 2, 1, {1, 1, 1, 1}},       // stride 2
      {1, 3, 16, 23, 21, 7, 7, 2, 1, {3, 3, 3, 3}},       // a ResNet stem: 7×7 stride 2 pad 3
      {1, 6, 10, 12, 12, 3, 3, 1, 2, {2, 2, 2, 2}},       // dilation 2
      {2, 12, 20, 8, 9, 1, 1, 2, 1, {0, 0, 0, 0}},        // 1×1 stride 2
      {1, 7, 9, 9, 10, 2, 3, 1, 1, {0, 1, 1, 0}},         // asymmetric window and pads
      {2, 9, 14, 1, 30, 1, 5, 1, 1, {0, 2, 0, 2}, true},  // 1-D
      {1, 40, 50, 30, 30, 1, 1, 1, 1, {0, 0, 0, 0}},      // 900 rows: several blocks
      {1, 100, 20, 12, 12, 3, 3, 1, 1, {1, 1, 1, 1}},     // k = 900: several passes
      {1, 64, 70, 28, 28, 3, 3, 1, 1, {1, 1, 1, 1}},      // whole blocks on each of 2 threads
  };
  std::mt19937 rng(131);
  for (size_t at = 0; at < cases.size(); ++at) {
    const Int8ConvCase& c = cases[at];
    for (int variant = 0; variant < 4; ++variant) {
      const int trial = int(at) * 4 + variant;
      const bool x_signed = trial % 2 == 1, y_signed = trial % 3 == 0;
      const bool per_channel = variant < 2, bias = variant % 2 == 0;
      const bool w_zero = trial % 7 == 3;
      const int threads = 1 + variant % 2;
      SCOPED_TRACE(testing::Message()
                   << "case " << at << " variant " << variant << (x_signed ? " int8" : " uint8")
                   << " X, " << threads << " threads");
      const DType xt = x_signed ? DType::kI8 : DType::kU8;
      const std::vector<int64_t> x_shape =
          c.one_d ? std::vector<int64_t>{c.batch, c.channels, c.width}
                  : std::vector<int64_t>{c.batch, c.channels, c.height, c.width};
      const std::vector<int64_t> w_shape =
          c.one_d ? std::vector<int64_t>{c.outputs, c.channels, c.kernel_w}
                  : std::vector<int64_t>{c.outputs, c.channels, c.kernel_h, c.kernel_w};
      GraphBuilder b(13);
      auto [n, w] = add_random_qlinear_conv(b, rng, x_shape, w_shape,
                                            {x_signed, y_signed, per_channel, bias, w_zero});
      n->attributes["strides"] = c.one_d ? attr_ints({c.stride}) : attr_ints({c.stride, c.stride});
      n->attributes["dilations"] =
          c.one_d ? attr_ints({c.dilation}) : attr_ints({c.dilation, c.dilation});
      n->attributes["pads"] = c.one_d ? attr_ints({c.pads[1], c.pads[3]}) : attr_ints(c.pads);
      const ir::Graph graph = b.build();
      const SessionResult f =
          expect_fast_equals_reference_bits(graph, random_bytes(rng, xt, x_shape), threads);
      ASSERT_EQ(f.steps.size(), 1u);
      // With VNNI oneDNN is exact and keeps the convolutions without weight zero points.
      const kernels::Int8ConvRoute route = kernels::int8_conv_route(w, 1, xt);
      if (route.kernel == kernels::Int8ConvKernel::kOneDnn && !w_zero) continue;
      EXPECT_EQ(f.steps[0].kernel, "cpu:int8_conv:avx2") << f.steps[0].reason;
      EXPECT_NE(f.steps[0].reason.find("exact int8 convolution"), std::string::npos)
          << f.steps[0].reason;
      // The last case's 784 rows make blocks of 170: on 2 threads each takes whole ones.
      // Whole blocks per thread: two full ones each (the last case), or more rows than columns
      // and 48 rows for each of 2 blocks per thread.
      const auto out_size = [&](int64_t in, int64_t kernel, int64_t pad_sum) {
        return (in + pad_sum - c.dilation * (kernel - 1) - 1) / c.stride + 1;
      };
      const int64_t rows = c.batch * out_size(c.width, c.kernel_w, c.pads[1] + c.pads[3]) *
                           (c.one_d ? 1 : out_size(c.height, c.kernel_h, c.pads[0] + c.pads[2]));
      const bool shared =
          threads == 2 && (at + 1 == cases.size() || (rows >= c.outputs && rows >= 2 * 2 * 48));
      EXPECT_EQ(f.steps[0].reason.find("blocks shared among 2 threads") != std::string::npos,
                shared)
          << f.steps[0].reason;
    }
  }
}

// Prepared, the kernel only computes: its runs (im2col, the GEMM, the requantization, blocks
// shared among threads or columns shared) allocate nothing. The middle of three convolutions
// reads and writes channels-last data, so no layout conversion (oneDNN's) runs in its step.
TEST(ExactInt8Conv, RunsWithoutHeapAllocation) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  std::mt19937 rng(134);
  for (const int64_t size : {7, 40}) {  // 49 rows: one block; 1,600 rows: blocks per thread
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << size << "×" << size << ", " << threads << " threads");
      GraphBuilder b(13);
      b.input("x", {1, 24, size, size}, DType::kU8);
      b.constant("scale", Tensor::from<float>({}, {0.02f}));
      b.constant("zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
      b.constant("w", saturating_int8_weights(rng, {24, 24, 3, 3}));
      b.constant("w_scale", Tensor::from<float>({}, {0.004f}));
      // A weight zero point: oneDNN 2.6 takes none, so strata's kernel runs on every CPU.
      b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(2)}));
      for (const char* y : {"a", "b", "c"}) {
        const std::string x = y[0] == 'a' ? "x" : std::string(1, char(y[0] - 1));
        b.node("QLinearConv", {x, "scale", "zp", "w", "w_scale", "w_zp", "scale", "zp"}, {y})
            .attributes["pads"] = attr_ints({1, 1, 1, 1});
      }
      b.output("c");
      const ir::Graph graph = b.build();
      const Tensor x = random_bytes(rng, DType::kU8, {1, 24, size, size});
      runtime::SessionOptions options;
      options.threads = threads;
      options.single_thread_flops = options.single_thread_bytes = 0;
      runtime::Session session(graph, {{DType::kU8, {1, 24, size, size}}}, options);
      const std::vector<const Tensor*> inputs = {&x};
      session.run(inputs);  // warm-up
      ASSERT_EQ(session.steps()[1].kernel, "cpu:int8_conv:avx2") << session.steps()[1].reason;
      EXPECT_TRUE(session.steps()[1].conversions.empty());
      EXPECT_EQ(step_allocations(session, inputs, 1), 0);
    }
  }
}

// Grouped convolutions that are not depthwise are neither exact kernel's (depthwise ones are
// cpu_int8_depthwise_conv's: int8_depthwise_conv_test.cpp): oneDNN's where it is exact, else the
// reference kernel, the step saying why.
// The byte kernel's fallback to 16-bit pairs depends on the input: activations far from their
// zero point (uniform random bytes) take it, and the session says so after the run; activations
// near it (as calibrated models' are) do not, and nothing is said.
TEST(ExactInt8Conv, SaysWhenAnInputTakesTheSlowerWay) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  std::mt19937 rng(135);
  GraphBuilder b(13);
  b.input("x", {1, 24, 7, 7}, DType::kU8);
  b.constant("scale", Tensor::from<float>({}, {0.02f}));
  b.constant("zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  const Tensor w = saturating_int8_weights(rng, {24, 24, 3, 3});  // k = 216: clipped bytes
  b.constant("w", w);
  b.constant("w_scale", Tensor::from<float>({}, {0.004f}));
  b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.node("QLinearConv", {"x", "scale", "zp", "w", "w_scale", "w_zp", "scale", "zp"}, {"y"})
      .attributes["pads"] = attr_ints({1, 1, 1, 1});
  b.output("y");
  const ir::Graph graph = b.build();
  runtime::Session session(graph, {{DType::kU8, {1, 24, 7, 7}}}, {});
  if (session.steps()[0].kernel != "cpu:int8_conv:avx2")
    GTEST_SKIP() << "oneDNN takes this convolution here: " << session.steps()[0].reason;
  Tensor near = Tensor::zeros(DType::kU8, {1, 24, 7, 7});
  for (int64_t i = 0; i < near.numel(); ++i)
    near.data<uint8_t>()[i] = uint8_t(random_int(rng, 100, 156));
  session.run({&near});
  EXPECT_EQ(session.run_note(0), "");
  EXPECT_TRUE(profiler::slow_path_warnings(session, {&near}).empty());
  const Tensor uniform = random_bytes(rng, DType::kU8, {1, 24, 7, 7});
  session.run({&uniform});
  EXPECT_EQ(session.run_note(0).rfind("16-bit pairs on 1 of 2 calls: this input's activations lay "
                                      "far from their zero point",
                                      0),
            0u)
      << session.run_note(0);
  const std::vector<std::string> w_after = profiler::slow_path_warnings(session, {&uniform});
  ASSERT_EQ(w_after.size(), 1u);
  EXPECT_EQ(w_after[0].rfind("1 step took a slower way on this input: 'y_node' (QLinearConv): "
                             "16-bit pairs on 1 of 2 calls",
                             0),
            0u)
      << w_after[0];
}

TEST(ExactInt8Conv, LeavesGroupedConvolutions) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  std::mt19937 rng(132);
  GraphBuilder b(13);
  b.input("x", {1, 8, 6, 6}, DType::kU8);
  b.constant("x_scale", Tensor::from<float>({}, {0.02f}));
  b.constant("x_zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  const Tensor w = saturating_int8_weights(rng, {8, 4, 3, 3});
  b.constant("w", w);
  b.constant("w_scale", Tensor::from<float>({}, {0.004f}));
  b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("y_scale", Tensor::from<float>({}, {0.05f}));
  b.constant("y_zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
  b.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"})
      .attributes["group"] = attr_int(2);
  b.output("y");
  const ir::Graph graph = b.build();
  const Tensor x = random_bytes(rng, DType::kU8, {1, 8, 6, 6});
  const SessionResult f = run_session(graph, {x}, {});
  EXPECT_NE(f.steps[0].kernel, "cpu:int8_conv:avx2");
  EXPECT_NE(f.steps[0].kernel, "cpu:int8_depthwise_conv:avx2");
  const kernels::Int8ConvRoute route = kernels::int8_conv_route(w, 2, DType::kU8);
  if (route.kernel == kernels::Int8ConvKernel::kOneDnn) return;  // VNNI
  EXPECT_EQ(route.kernel, kernels::Int8ConvKernel::kNone);
  EXPECT_EQ(f.steps[0].kernel, "reference");
  EXPECT_NE(f.steps[0].reason.find("takes group 1 only (this convolution has 2 groups"),
            std::string::npos)
      << f.steps[0].reason;
  EXPECT_NE(f.steps[0].reason.find("takes depthwise convolutions with one output channel per "
                                   "group only (this one has 2 groups of 4 input and 4 output "
                                   "channels)"),
            std::string::npos)
      << f.steps[0].reason;
}

// 16 output channels (the requantization's vector steps, not only its scalar tail) of sums from
// -128 to 127 whose scaled value is an exact half (multiplier 0.5) and an odd output zero point:
// ties round to even before the zero point is added (round(-8.5) + 127 = 119, where adding first
// would round 118.5 to 118).
TEST(ExactInt8Conv, TiesRoundBeforeTheZeroPointIsAdded) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  GraphBuilder b(13);
  b.input("x", {1, 1, 1, 256}, DType::kI8);
  b.constant("x_scale", Tensor::from<float>({}, {1.0f}));
  b.constant("x_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("w", Tensor::from<int8_t>({16, 1, 1, 1}, std::vector<int8_t>(16, int8_t(1))));
  b.constant("w_scale", Tensor::from<float>({}, {1.0f}));
  b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(0)}));
  b.constant("y_scale", Tensor::from<float>({}, {2.0f}));
  b.constant("y_zp", Tensor::from<uint8_t>({}, {uint8_t(127)}));
  b.node("QLinearConv", {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp"}, {"y"});
  b.output("y");
  Tensor x = Tensor::zeros(DType::kI8, {1, 1, 1, 256});
  for (int i = 0; i < 256; ++i) x.data<int8_t>()[i] = int8_t(i - 128);
  const SessionResult f = run_session(b.build(), {x}, {});
  if (kernels::int8_product_problem(Tensor::zeros(DType::kI8, {1, 1, 1, 1}), 0, DType::kI8).empty())
    GTEST_SKIP() << "VNNI: oneDNN's int8 convolution takes it";
  EXPECT_EQ(f.steps[0].kernel, "cpu:int8_conv:avx2") << f.steps[0].reason;
  std::vector<double> expected;
  for (int channel = 0; channel < 16; ++channel)
    for (int sum = -128; sum < 128; ++sum)
      expected.push_back(std::clamp(std::nearbyint(sum * 0.5) + 127, 0.0, 255.0));
  EXPECT_EQ(f.outputs[0].to_double(), expected);
}

// Sums x in ±range whose float32 product x · m lands exactly halfway between two integers
// while the exact product does not: where the float32 path alone would round the wrong way.
std::vector<int32_t> int8_float_near_ties(float m, int32_t range) {
  std::vector<int32_t> found;
  for (int32_t x = -range; x <= range; ++x) {
    const double exact = double(x) * double(m);
    const double rounded = double(float(exact));
    if (rounded != exact && rounded - std::floor(rounded) == 0.5) found.push_back(x);
  }
  return found;
}

// One way of int8_requantize's to test: multipliers per column (cycled), the bound on the sums
// given to it (the random sums keep within it) and the path it must take with 5 columns or more.
struct Int8RequantizeWay {
  const char* name;
  std::vector<float> multipliers;
  int32_t max_sum;
  bool float_path, clamps;
};

// The requantization strata's exact int8 kernels share, against ops::requantize (the reference
// kernels'), on each of its ways (float32 with the sums clamped where they saturate, float32
// unclamped, double; docs/quantization.md): sums that land exactly halfway (multipliers 0.5 and
// 0.25: ties go to even before the zero point is added), whose float32 products land halfway when
// the exact ones do not, that saturate either end (products past ±2^31 too, with zero points at
// the ends of their types), with a bias, on row lengths that leave vector tails. Rounding half
// away from zero, adding the zero point first, or trusting the float32 path's halfway products,
// fails it.
TEST(Int8Requantize, EqualsTheReferenceOnTiesSaturationAndTails) {
  STRATA_NEEDS_EXACT_INT8_CONV();
  std::mt19937 rng(133);
  const std::vector<Int8RequantizeWay> ways = {
      {"float32, clamped", {0.5f, 0.25f, 1.0f, 0.0123f, 0.00071f, 4096.0f}, 2000000000, true, true},
      // Sums within 2^23 and products within 2^21: nothing to clamp, however small the multiplier.
      {"float32, unclamped",
       {0.25f, 0.125f, 0.0123f, 0.00071f, 3.0e-5f, 1.0e-6f},
       (1 << 23) - 8,
       true,
       false},
      // 3.0e-5 is below the clamped float32 path's smallest multiplier (2^-15).
      {"double", {0.5f, 0.25f, 1.0f, 0.0123f, 3.0e-5f, 4096.0f}, 2000000000, false, false}};
  for (const Int8RequantizeWay& way : ways) {
    std::vector<std::vector<int32_t>> near_ties;
    for (const float m : way.multipliers)
      near_ties.push_back(int8_float_near_ties(m, int32_t(std::min(600 / m, 1.0e6f))));
    size_t found = 0;
    for (const std::vector<int32_t>& ties : near_ties) found += ties.size();
    ASSERT_GT(found, 10u);
    for (const int64_t n : {1, 7, 8, 9, 16, 37}) {
      for (const bool y_signed : {false, true}) {
        for (const int with_bias_and_zero : {0, 1, 2, 3}) {
          const bool with_bias = with_bias_and_zero % 2 == 1;
          // Odd zero points (a tie rounded after adding them would differ), then the types' ends.
          const int32_t zero_point = with_bias_and_zero < 2 ? (y_signed ? -3 : 127)
                                     : with_bias            ? (y_signed ? -128 : 0)
                                                            : (y_signed ? 127 : 255);
          SCOPED_TRACE(testing::Message()
                       << way.name << ", " << n << " columns, " << (y_signed ? "int8" : "uint8")
                       << (with_bias ? ", bias" : "") << ", zero point " << zero_point);
          const int64_t rows = 40;
          std::vector<float> multipliers(static_cast<size_t>(n));
          std::vector<int32_t> bias(static_cast<size_t>(n), 0);
          for (int64_t j = 0; j < n; ++j) {
            multipliers[size_t(j)] = way.multipliers[size_t(j % 6)];
            if (with_bias) bias[size_t(j)] = int32_t(random_int(rng, -3, 3));
          }
          std::vector<int32_t> sums(static_cast<size_t>(rows * n));
          for (size_t i = 0; i < sums.size(); ++i) {
            const std::vector<int32_t>& ties = near_ties[i % size_t(n) % 6];
            sums[i] = i % 4 == 0     ? int32_t(random_int(rng, -600, 600))  // ties, everyday values
                      : i % 4 == 1   ? int32_t(random_int(rng, -41, 41))    // ties near zero
                      : i % 4 == 2   ? int32_t(random_int(rng, -way.max_sum, way.max_sum))
                      : ties.empty() ? 0
                                     : ties[size_t(random_int(rng, 0, int64_t(ties.size()) - 1))] -
                                           bias[i % size_t(n)];
          }
          const kernels::cpu::Int8RequantizationValues values(
              multipliers, with_bias ? bias : std::vector<int32_t>{}, zero_point, y_signed,
              double(way.max_sum));
          ASSERT_EQ(values.float_path(), way.float_path || n < 5);  // column 4: 3.0e-5
          ASSERT_EQ(values.clamps(), way.clamps || (!way.float_path && n < 5));
          std::vector<uint8_t> y(sums.size());
          kernels::cpu::int8_requantize(sums.data(), rows, n, values.get(), y.data());
          for (int64_t i = 0; i < rows * n; ++i) {
            const int64_t j = i % n;
            const double sum = double(sums[size_t(i)]) + double(bias[size_t(j)]);
            const float m = multipliers[size_t(j)];
            const int expected = y_signed ? int(ops::requantize<int8_t>(sum, m, zero_point))
                                          : int(ops::requantize<uint8_t>(sum, m, zero_point));
            const int got = y_signed ? int(int8_t(y[size_t(i)])) : int(y[size_t(i)]);
            ASSERT_EQ(got, expected) << "sum " << sum << " · " << m << " + " << zero_point;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace strata::test
