// The nearest-neighbour Resize kernel (src/kernels/cpu/resize_nearest.cpp) against the op's
// reference: every coordinate transformation and rounding mode, integer and fractional scales,
// sizes, downscaling, each activation layout of the convolution before it, and several dtypes.
// Linear and cubic modes go to the interpolating kernel (src/kernels/cpu/resize_linear.cpp), tested
// here too; scales known only while running stay with the reference kernel.
#include <gtest/gtest.h>

#include <random>

#include "kernels/kernel_test_util.h"
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

struct NearestCase {
  std::string transform, rounding;
  std::vector<float> scales;   // empty: sizes
  std::vector<int64_t> sizes;  // of all four axes
};

// x → Conv (16 or 5 channels) → Resize → Relu, so that the Resize sees the conv's layout.
ir::Graph conv_resize_relu(std::mt19937& rng, int64_t channels, const NearestCase& c,
                           const std::string& mode = "nearest") {
  GraphBuilder g(13);
  g.input("x", {1, 3, 9, 7});
  g.constant("w", random_tensor(rng, {channels, 3, 1, 1}));
  g.constant("roi", Tensor::zeros(DType::kF32, {0}));
  if (!c.scales.empty()) {
    g.constant("scales", Tensor::from<float>({4}, std::span<const float>(c.scales)));
  } else {
    g.constant("scales", Tensor::zeros(DType::kF32, {0}));
    g.constant("sizes", Tensor::from<int64_t>({4}, std::span<const int64_t>(c.sizes)));
  }
  g.node("Conv", {"x", "w"}, {"a"});
  ir::Node& resize =
      g.node("Resize", {"a", "roi", "scales", c.scales.empty() ? "sizes" : ""}, {"b"});
  resize.attributes["mode"] = attr_string(mode);
  resize.attributes["coordinate_transformation_mode"] = attr_string(c.transform);
  resize.attributes["nearest_mode"] = attr_string(c.rounding);
  g.node("Relu", {"b"}, {"y"});
  g.output("y");
  return g.build();
}

TEST(ResizeNearestKernel, MatchesTheReferenceInEveryModeAndLayout) {
  std::mt19937 rng(47);
  const NearestCase cases[] = {
      {"asymmetric", "floor", {1, 1, 2, 2}, {}},  // FPN's upsampling as torch exports it
      {"half_pixel", "round_prefer_floor", {1, 1, 3, 1.5f}, {}},
      {"align_corners", "round_prefer_ceil", {}, {1, 0, 13, 4}},
      {"pytorch_half_pixel", "ceil", {1, 1, 0.5f, 2.5f}, {}},
      {"asymmetric", "round_prefer_ceil", {1, 2, 2, 1}, {}},  // channels resized: plain only
  };
  for (const NearestCase& c : cases) {
    for (int64_t channels : {int64_t(16), int64_t(5)}) {
      for (auto layout : {kernels::LayoutPolicy::kAuto, kernels::LayoutPolicy::kChannelsLast,
                          kernels::LayoutPolicy::kBlocked, kernels::LayoutPolicy::kPlain}) {
        NearestCase sized = c;
        if (!sized.sizes.empty()) sized.sizes[1] = channels;
        SCOPED_TRACE(testing::Message() << c.transform << " " << c.rounding << ", " << channels
                                        << " channels, " << kernels::layout_policy_name(layout));
        // The convolutions before differ by rounding; the copies are exact.
        const std::vector<runtime::StepInfo> steps =
            expect_fast_matches_reference(conv_resize_relu(rng, channels, sized),
                                          {random_tensor(rng, {1, 3, 9, 7})}, layout, 1e-5, 2);
        ASSERT_EQ(steps.size(), 3u);
        EXPECT_EQ(steps[1].kernel, "strata:resize_nearest") << steps[1].reason;
        const bool channels_resized = c.scales.size() == 4 && c.scales[1] != 1;
        if (channels_resized) {
          EXPECT_EQ(steps[1].layout, "nchw");
        }
        if (!channels_resized && steps[0].layout == native_blocked_name()) {
          EXPECT_EQ(steps[1].layout, steps[0].layout);  // no conversion either side
          EXPECT_TRUE(steps[1].conversions.empty()) << steps[1].conversions[0];
        }
      }
    }
  }
}

TEST(ResizeNearestKernel, AnyDtypeOfAnyRank) {
  for (DType dtype : {DType::kI64, DType::kU8, DType::kF16}) {
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{5}, std::vector<int64_t>{2, 3, 4, 5, 2}}) {
      GraphBuilder g(13);
      g.input("x", shape, dtype);
      g.constant("roi", Tensor::zeros(DType::kF32, {0}));
      std::vector<float> scales(shape.size(), 2.0f);
      scales[0] = 1;
      g.constant("scales",
                 Tensor::from<float>({int64_t(scales.size())}, std::span<const float>(scales)));
      g.node("Resize", {"x", "roi", "scales"}, {"y"}).attributes["mode"] = attr_string("nearest");
      g.output("y");
      Tensor x = Tensor::zeros(dtype, shape);
      auto* bytes = static_cast<uint8_t*>(x.raw());
      for (size_t i = 0; i < x.nbytes(); ++i) bytes[i] = uint8_t(i * 37 % 61);
      const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), {x});
      EXPECT_EQ(steps[0].kernel, "strata:resize_nearest") << steps[0].reason;
    }
  }
}

TEST(ResizeNearestKernel, LinearModeGoesToTheInterpolationAndRunTimeScalesToTheReference) {
  std::mt19937 rng(53);
  const std::vector<runtime::StepInfo> linear = expect_fast_matches_reference(
      conv_resize_relu(rng, 16, {"half_pixel", "floor", {1, 1, 2, 2}, {}}, "linear"),
      {random_tensor(rng, {1, 3, 9, 7})});
  EXPECT_EQ(linear[1].kernel, "cpu:resize_interpolate");

  GraphBuilder g(13);
  g.input("x", {1, 2, 3, 3});
  g.input("scales", {4});
  g.constant("roi", Tensor::zeros(DType::kF32, {0}));
  g.node("Resize", {"x", "roi", "scales"}, {"y"}).attributes["mode"] = attr_string("nearest");
  g.output("y");
  const Tensor scales = Tensor::from<float>({4}, {1, 1, 2, 2});
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {1, 2, 3, 3}), scales});
  EXPECT_EQ(steps[0].kernel, "reference");
}

// A Resize of [planes..., H, W] with scales or sizes of the last two axes.
ir::Graph interpolating_resize(const std::vector<int64_t>& in, const std::vector<float>& scales,
                               const std::vector<int64_t>& sizes, const std::string& mode,
                               const std::string& transform, int64_t antialias = 0) {
  GraphBuilder g(19);  // half_pixel_symmetric
  g.input("x", in);
  g.constant("roi", Tensor::zeros(DType::kF32, {0}));
  const int64_t rank = int64_t(in.size());
  if (!scales.empty()) {
    g.constant("scales", Tensor::from<float>({rank}, std::span<const float>(scales)));
  } else {
    g.constant("scales", Tensor::zeros(DType::kF32, {0}));
    g.constant("sizes", Tensor::from<int64_t>({rank}, std::span<const int64_t>(sizes)));
  }
  ir::Node& resize = g.node("Resize", {"x", "roi", "scales", scales.empty() ? "sizes" : ""}, {"y"});
  resize.attributes["mode"] = attr_string(mode);
  resize.attributes["coordinate_transformation_mode"] = attr_string(transform);
  resize.attributes["antialias"] = attr_int(antialias);
  g.output("y");
  return g.build();
}

// Linear and cubic modes in every coordinate transformation, up and down, by scales and sizes,
// antialiased, ranks 2 to 5, one and two threads: the op's taps, as the reference blends them.
TEST(ResizeInterpolateKernel, MatchesTheReferenceInEveryModeAndTransformation) {
  std::mt19937 rng(54);
  struct Case {
    std::vector<int64_t> in;
    std::vector<float> scales;
    std::vector<int64_t> sizes;
  };
  const std::vector<Case> cases = {
      {{1, 3, 9, 7}, {1, 1, 2, 2}, {}},
      {{1, 2, 10, 12}, {1, 1, 0.5f, 0.75f}, {}},
      {{2, 3, 5, 6}, {}, {2, 3, 17, 4}},
      {{4, 6}, {2.5f, 1.5f}, {}},
      {{3, 4, 4}, {1, 8, 8}, {}},
      {{1, 2, 2, 5, 5}, {1, 1, 1, 3, 3}, {}},
      {{1, 21, 40, 40}, {}, {1, 21, 320, 320}},  // a segmentation head's upsampling
  };
  for (const char* mode : {"linear", "cubic"})
    for (const char* transform : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                  "half_pixel_symmetric"})
      for (const Case& c : cases)
        for (int64_t antialias : {0, 1}) {
          if (c.in.back() * c.in.size() > 200 && (std::string(mode) == "cubic" || antialias))
            continue;  // the large case once per transformation
          const int threads = 1 + int(rng() % 2);
          SCOPED_TRACE(testing::Message()
                       << mode << " " << transform << " " << Shape::of(c.in).str() << " antialias "
                       << antialias << " threads " << threads);
          const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
              interpolating_resize(c.in, c.scales, c.sizes, mode, transform, antialias),
              {random_tensor(rng, c.in)}, kernels::LayoutPolicy::kAuto, 1e-5, threads);
          ASSERT_EQ(steps.size(), 1u);
          EXPECT_EQ(steps[0].kernel, "cpu:resize_interpolate") << steps[0].reason;
        }
}

// Resizing an axis before the last two, or extrapolating (tf_crop_and_resize outside the roi),
// stays with the reference kernel.
TEST(ResizeInterpolateKernel, OtherAxesAndExtrapolationStayWithTheReference) {
  std::mt19937 rng(55);
  const std::vector<runtime::StepInfo> channels = expect_fast_matches_reference(
      interpolating_resize({1, 3, 4, 4}, {1, 2, 2, 2}, {}, "linear", "half_pixel"),
      {random_tensor(rng, {1, 3, 4, 4})});
  EXPECT_EQ(channels[0].kernel, "reference");
  EXPECT_NE(channels[0].reason.find("an axis before the last two"), std::string::npos)
      << channels[0].reason;

  GraphBuilder g(18);
  g.input("x", {1, 1, 4, 4});
  g.constant("roi", Tensor::from<float>({8}, {0, 0, -0.5f, -0.5f, 1, 1, 1.5f, 1.5f}));
  g.constant("scales", Tensor::from<float>({4}, {1, 1, 2, 2}));
  ir::Node& crop = g.node("Resize", {"x", "roi", "scales"}, {"y"});
  crop.attributes["mode"] = attr_string("linear");
  crop.attributes["coordinate_transformation_mode"] = attr_string("tf_crop_and_resize");
  g.output("y");
  const std::vector<runtime::StepInfo> steps =
      expect_fast_matches_reference(g.build(), {random_tensor(rng, {1, 1, 4, 4})});
  EXPECT_EQ(steps[0].kernel, "reference");
}

}  // namespace
}  // namespace strata::test
