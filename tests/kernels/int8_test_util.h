// Operands for the exact int8 kernels' tests (int8_conv_test.cpp, int8_depthwise_conv_test.cpp).
#pragma once

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "kernels/kernel_test_util.h"

namespace strata::test {

// int8 weights: about half 127 or -128 (every output channel's pairs overflow the 16 bits of
// oneDNN's kernels without VNNI), the rest random.
inline Tensor saturating_int8_weights(std::mt19937& rng, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(DType::kI8, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<int8_t>()[i] = random_int(rng, 0, 1) ? int8_t(random_int(rng, 0, 1) ? 127 : -128)
                                                : int8_t(random_int(rng, -128, 127));
  return t;
}

// A uint8 or int8 tensor of random bytes.
inline Tensor random_bytes(std::mt19937& rng, DType type, const std::vector<int64_t>& shape) {
  Tensor t = Tensor::zeros(type, shape);
  for (int64_t i = 0; i < t.numel(); ++i)
    static_cast<uint8_t*>(t.raw())[i] = uint8_t(random_int(rng, 0, 255));
  return t;
}

// How a random QLinearConv's operands are quantized.
struct QLinearConvChoice {
  bool x_signed = false, y_signed = false;
  bool per_channel = false;  // one weight scale and zero point per output channel
  bool bias = false;
  bool w_zero = false;  // weight zero points other than 0
};

// Adds input "x" of `x_shape` and a QLinearConv "y" of saturating int8 weights of `w_shape` with
// random scales and zero points as `c` says, y's scale giving about 40 output units per standard
// deviation of the sums (some saturate). Returns the node (its window attributes still to set)
// and the weights.
inline std::pair<ir::Node*, Tensor> add_random_qlinear_conv(GraphBuilder& b, std::mt19937& rng,
                                                            const std::vector<int64_t>& x_shape,
                                                            const std::vector<int64_t>& w_shape,
                                                            const QLinearConvChoice& c) {
  const int64_t outputs = w_shape[0];
  b.input("x", x_shape, c.x_signed ? DType::kI8 : DType::kU8);
  const float x_scale = 0.02f;
  b.constant("x_scale", Tensor::from<float>({}, {x_scale}));
  b.constant("x_zp", c.x_signed ? Tensor::from<int8_t>({}, {int8_t(random_int(rng, -30, 30))})
                                : Tensor::from<uint8_t>({}, {uint8_t(random_int(rng, 90, 160))}));
  Tensor w = saturating_int8_weights(rng, w_shape);
  b.constant("w", w);
  const size_t scales = c.per_channel ? size_t(outputs) : 1;
  std::vector<float> w_scales(scales);
  for (float& s : w_scales) s = 0.004f * float(random_int(rng, 5, 20)) / 10;
  b.constant("w_scale", c.per_channel ? Tensor::from<float>({outputs}, w_scales)
                                      : Tensor::from<float>({}, w_scales));
  std::vector<int8_t> w_zeros(scales, 0);
  if (c.w_zero)  // nonzero: a zero would leave the convolution to oneDNN where it is exact
    for (int8_t& z : w_zeros) z = int8_t(random_int(rng, 1, 5) * (random_int(rng, 0, 1) ? 1 : -1));
  b.constant("w_zp", c.per_channel ? Tensor::from<int8_t>({outputs}, w_zeros)
                                   : Tensor::from<int8_t>({}, w_zeros));
  const double k = double(w.numel() / outputs);  // products summed per output
  b.constant("y_scale",
             Tensor::from<float>({}, {float(x_scale * 0.006 * 74 * 100 * std::sqrt(k) / 40)}));
  b.constant("y_zp", c.y_signed ? Tensor::from<int8_t>({}, {int8_t(random_int(rng, -10, 10))})
                                : Tensor::from<uint8_t>({}, {uint8_t(random_int(rng, 100, 150))}));
  if (c.bias) {
    std::vector<int32_t> values(static_cast<size_t>(outputs));
    for (int32_t& v : values) v = int32_t(random_int(rng, -40000, 40000));
    b.constant("B", Tensor::from<int32_t>({outputs}, values));
  }
  ir::Node& n =
      b.node("QLinearConv",
             {"x", "x_scale", "x_zp", "w", "w_scale", "w_zp", "y_scale", "y_zp", c.bias ? "B" : ""},
             {"y"});
  b.output("y");
  return {&n, std::move(w)};
}

// Runs `graph` on `x` with the fast kernels (every step on `threads`) and the reference ones and
// expects equal outputs, bit for bit, from strata's exact kernels. oneDNN's int8 kernels (where
// VNNI or AMX makes their sums exact) requantize in float32, sum · multiplier rounded to float
// before the rounding to an integer, where the reference applies the multiplier in double: on
// near-ties they may land one step apart (docs/quantization.md), so their outputs are checked
// within one step. Returns the fast run.
inline SessionResult expect_fast_equals_reference_bits(const ir::Graph& graph, const Tensor& x,
                                                       int threads) {
  runtime::SessionOptions fast, reference;
  fast.threads = threads;
  fast.single_thread_flops = fast.single_thread_bytes = 0;
  reference.fast_kernels = false;
  SessionResult f = run_session(graph, {x}, fast);
  const SessionResult r = run_session(graph, {x}, reference);
  const bool onednn = !f.steps.empty() && f.steps[0].kernel.rfind("onednn:", 0) == 0;
  const double steps = onednn ? 1 : 0;
  const runtime::Comparison cmp = runtime::compare(f.outputs[0], r.outputs[0], {0, steps});
  EXPECT_TRUE(cmp.ok) << cmp.problem << " (kernel "
                      << (f.steps.empty() ? std::string("none") : f.steps[0].kernel) << ")";
  return f;
}

}  // namespace strata::test
