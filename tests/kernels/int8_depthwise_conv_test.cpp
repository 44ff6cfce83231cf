// strata's exact int8 depthwise convolution (cpu_int8_depthwise_conv in
// src/kernels/cpu/int8_conv.cpp) against QLinearConv's reference kernel, equal to the bit: 3×3 pad
// 1 at strides 1 and 2, 5×5, 7×7, dilation 2, asymmetric windows and pads, batches, channel counts
// that leave tails of the 16 channels a block, uint8 and int8 X with zero points, weight zero
// points, per-tensor and per-channel scales, with and without bias, weights of ±127 and -128 (whose
// pairs of products overflow 16 bits, which oneDNN's kernels saturate without VNNI), on 1 and 2
// threads. And that it allocates nothing while it runs.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/cpu/int8_gemm.h"
#include "kernels/int8_products.h"
#include "kernels/int8_test_util.h"
#include "kernels/kernel_test_util.h"
#include "profiler/alloc_counter.h"

namespace strata::test {
namespace {

#define STRATA_NEEDS_EXACT_INT8_DEPTHWISE_CONV()                                                 \
  if (!kernels::cpu::int8_gemm_available())                                                      \
  GTEST_SKIP() << "this CPU has no AVX2: strata's exact int8 depthwise convolution is not used " \
                  "(the reference kernel runs them)"

constexpr const char* kDepthwiseKernel = "cpu:int8_depthwise_conv:avx2";

// One depthwise convolution's geometry (channels in = groups = channels out).
struct Int8DepthwiseCase {
  int64_t batch, channels, height, width, kernel_h, kernel_w, stride, dilation;
  std::vector<int64_t> pads;  // top, left, bottom, right
};

TEST(ExactInt8DepthwiseConv, EqualsTheReferenceBitForBit) {
  STRATA_NEEDS_EXACT_INT8_DEPTHWISE_CONV();
  const std::vector<Int8DepthwiseCase> cases = {
      {1, 32, 10, 9, 3, 3, 1, 1, {1, 1, 1, 1}},   // 3×3 pad 1 (MobileNet's)
      {1, 40, 11, 12, 3, 3, 2, 1, {1, 1, 1, 1}},  // stride 2; 40 channels: a tail of 8
      {1, 19, 12, 12, 5, 5, 1, 1, {2, 2, 2, 2}},  // 5×5; a tail of 3
      {1, 24, 13, 11, 7, 7, 2, 1, {3, 3, 3, 3}},  // 7×7 stride 2 (49 taps: an odd one)
      {1, 21, 12, 12, 3, 3, 1, 2, {2, 2, 2, 2}},  // dilation 2
      {1, 7, 9, 10, 2, 3, 1, 1, {0, 1, 1, 0}},    // asymmetric window and pads, 7 channels
      {2, 3, 8, 8, 3, 3, 1, 1, {1, 1, 1, 1}},     // batch 2, 3 channels
      {2, 48, 9, 9, 3, 3, 2, 1, {0, 0, 1, 1}},    // batch 2, pads at the end only (TF's SAME)
      {1, 33, 6, 7, 3, 3, 1, 1, {0, 0, 0, 0}},    // no padding; a tail of 1
      {1, 64, 5, 5, 1, 1, 1, 1, {0, 0, 0, 0}},    // 1×1: one tap and the zero row
  };
  std::mt19937 rng(231);
  for (size_t at = 0; at < cases.size(); ++at) {
    const Int8DepthwiseCase& c = cases[at];
    for (int variant = 0; variant < 4; ++variant) {
      const int trial = int(at) * 4 + variant;
      const bool x_signed = trial % 2 == 1, y_signed = trial % 3 == 0;
      const bool per_channel = variant < 2, bias = variant % 2 == 0;
      const bool w_zero = trial % 5 == 1 || trial % 5 == 3;
      const int threads = 1 + (variant / 2 + trial) % 2;
      SCOPED_TRACE(testing::Message()
                   << "case " << at << " variant " << variant << (x_signed ? " int8" : " uint8")
                   << " X, " << (per_channel ? "per-channel" : "per-tensor") << " w_scale"
                   << (w_zero ? ", w zero points" : "") << (bias ? ", bias, " : ", ") << threads
                   << " threads");
      const DType xt = x_signed ? DType::kI8 : DType::kU8;
      const std::vector<int64_t> x_shape = {c.batch, c.channels, c.height, c.width};
      const std::vector<int64_t> w_shape = {c.channels, 1, c.kernel_h, c.kernel_w};
      GraphBuilder b(13);
      auto [n, w] = add_random_qlinear_conv(b, rng, x_shape, w_shape,
                                            {x_signed, y_signed, per_channel, bias, w_zero});
      n->attributes["group"] = attr_int(c.channels);
      n->attributes["strides"] = attr_ints({c.stride, c.stride});
      n->attributes["dilations"] = attr_ints({c.dilation, c.dilation});
      n->attributes["pads"] = attr_ints(c.pads);
      const ir::Graph graph = b.build();
      const SessionResult f =
          expect_fast_equals_reference_bits(graph, random_bytes(rng, xt, x_shape), threads);
      ASSERT_EQ(f.steps.size(), 1u);
      // With VNNI oneDNN is exact and keeps the convolutions without weight zero points.
      const kernels::Int8ConvRoute route = kernels::int8_conv_route(w, c.channels, xt);
      if (route.kernel == kernels::Int8ConvKernel::kOneDnn && !w_zero) continue;
      EXPECT_EQ(f.steps[0].kernel, kDepthwiseKernel) << f.steps[0].reason;
      EXPECT_NE(f.steps[0].reason.find("exact int8 depthwise convolution"), std::string::npos)
          << f.steps[0].reason;
      const bool shared = threads == 2;  // every case has 2 output rows or more
      EXPECT_EQ(f.steps[0].reason.find("output rows shared among 2 threads") != std::string::npos,
                shared)
          << f.steps[0].reason;
    }
  }
}

// Prepared, the kernel only computes: its runs (the taps' pointers, the sums, the requantization,
// rows shared among threads) allocate nothing. The middle of three convolutions reads and writes
// channels-last data, so no layout conversion runs in its step.
TEST(ExactInt8DepthwiseConv, RunsWithoutHeapAllocation) {
  STRATA_NEEDS_EXACT_INT8_DEPTHWISE_CONV();
  if (!profiler::heap_counting_enabled())
    GTEST_SKIP() << "allocation counting is off under AddressSanitizer";
  std::mt19937 rng(234);
  for (const int64_t size : {7, 40}) {
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << size << "×" << size << ", " << threads << " threads");
      GraphBuilder b(13);
      b.input("x", {1, 24, size, size}, DType::kU8);
      b.constant("scale", Tensor::from<float>({}, {0.02f}));
      b.constant("zp", Tensor::from<uint8_t>({}, {uint8_t(128)}));
      b.constant("w", saturating_int8_weights(rng, {24, 1, 3, 3}));
      b.constant("w_scale", Tensor::from<float>({}, {0.004f}));
      b.constant("w_zp", Tensor::from<int8_t>({}, {int8_t(3)}));  // taken with VNNI too
      for (const char* y : {"a", "b", "c"}) {
        const std::string x = y[0] == 'a' ? "x" : std::string(1, char(y[0] - 1));
        ir::Node& n =
            b.node("QLinearConv", {x, "scale", "zp", "w", "w_scale", "w_zp", "scale", "zp"}, {y});
        n.attributes["pads"] = attr_ints({1, 1, 1, 1});
        n.attributes["group"] = attr_int(24);
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
      ASSERT_EQ(session.steps()[1].kernel, kDepthwiseKernel) << session.steps()[1].reason;
      EXPECT_TRUE(session.steps()[1].conversions.empty());
      EXPECT_EQ(step_allocations(session, inputs, 1), 0);
    }
  }
}

// The rule itself, whatever the CPU: without VNNI saturating depthwise weights go to the exact
// depthwise kernel (with AVX2), a channel multiplier of 2 to neither exact kernel; with VNNI to
// oneDNN.
TEST(ExactInt8DepthwiseConv, RouteTakesDepthwiseWithOneChannelPerGroup) {
  std::mt19937 rng(235);
  const Tensor depthwise = saturating_int8_weights(rng, {16, 1, 3, 3});
  const Tensor doubled = saturating_int8_weights(rng, {16, 1, 3, 3});  // 8 groups of 2 outputs
  EXPECT_EQ(kernels::int8_conv_route(depthwise, 16, DType::kU8, true).kernel,
            kernels::Int8ConvKernel::kOneDnn);
  EXPECT_EQ(kernels::int8_conv_route(doubled, 8, DType::kI8, false).kernel,
            kernels::Int8ConvKernel::kNone);
  if (!kernels::cpu::int8_gemm_available()) return;
  for (const DType xt : {DType::kU8, DType::kI8}) {
    const kernels::Int8ConvRoute route = kernels::int8_conv_route(depthwise, 16, xt, false);
    EXPECT_EQ(route.kernel, kernels::Int8ConvKernel::kExactDepthwise);
    EXPECT_NE(route.reason.find("no VNNI"), std::string::npos) << route.reason;
  }
  EXPECT_EQ(kernels::exact_int8_depthwise_conv_problem(depthwise, 16), "");
  EXPECT_NE(kernels::exact_int8_depthwise_conv_problem(doubled, 8), "");
  EXPECT_NE(kernels::exact_int8_depthwise_conv_problem(saturating_int8_weights(rng, {16, 1, 5}),
                                                       16),  // 1-D
            "");
}

}  // namespace
}  // namespace strata::test
