// strata's RoiAlign kernel (src/kernels/cpu/roi_align.cpp) against the reference kernel: random
// feature maps, rois inside, across and outside the image (some smaller than a pixel), batch
// indices, avg and max, both coordinate modes, few channels (read plane by plane) and many (read
// channels-last), one and two threads; and why it declines an adaptive sampling ratio.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

ir::Graph roi_align_graph(const std::vector<int64_t>& x, int64_t rois, const std::string& mode,
                          int64_t ratio, bool half_pixel, int64_t out_h, int64_t out_w) {
  GraphBuilder g(16);
  g.input("x", x);
  g.input("rois", {rois, 4});
  g.input("batch", {rois}, DType::kI64);
  ir::Node& n = g.node("RoiAlign", {"x", "rois", "batch"}, {"y"});
  n.attributes["mode"] = attr_string(mode);
  n.attributes["sampling_ratio"] = attr_int(ratio);
  n.attributes["output_height"] = attr_int(out_h);
  n.attributes["output_width"] = attr_int(out_w);
  n.attributes["spatial_scale"] = attr_float(0.25f);
  n.attributes["coordinate_transformation_mode"] =
      attr_string(half_pixel ? "half_pixel" : "output_half_pixel");
  g.output("y");
  return g.build();
}

// Rois in input pixels (spatial_scale 0.25 maps them onto X): corners anywhere from well before
// the image to well past it, some a fraction of a pixel wide.
Tensor random_rois(std::mt19937& rng, int64_t rois, int64_t height, int64_t width) {
  Tensor t = Tensor::zeros(DType::kF32, {rois, 4});
  std::uniform_real_distribution<float> u(-0.3f, 1.3f);
  for (int64_t r = 0; r < rois; ++r) {
    float* b = t.data<float>() + 4 * r;
    b[0] = u(rng) * float(width) * 4;
    b[1] = u(rng) * float(height) * 4;
    const float grow = r % 5 == 0 ? 0.2f : 1.0f + 4.0f * float(width) * std::abs(u(rng));
    b[2] = b[0] + grow;
    b[3] = b[1] + grow * 0.7f;
  }
  return t;
}

TEST(RoiAlignKernel, RandomRoisAndModesMatchTheReference) {
  std::mt19937 rng(121);
  for (int i = 0; i < 24; ++i) {
    const std::string mode = i % 2 ? "max" : "avg";
    const bool half_pixel = (i / 2) % 2;
    const int threads = 1 + (i / 4) % 2;
    const int64_t ratio = 1 + i % 3;
    // Every third case has enough channels to be read channels-last (a chunk and a part).
    const int64_t channels = i % 3 == 2 ? random_int(rng, 16, 90) : random_int(rng, 1, 9);
    const std::vector<int64_t> x = {random_int(rng, 1, 3), channels, random_int(rng, 1, 17),
                                    random_int(rng, 1, 17)};
    const int64_t rois = random_int(rng, 0, 40), out_h = random_int(rng, 1, 7),
                  out_w = random_int(rng, 1, 7);
    SCOPED_TRACE(testing::Message()
                 << mode << " half_pixel " << half_pixel << " ratio " << ratio << " X "
                 << Shape::of(x).str() << " rois " << rois << " threads " << threads);
    Tensor batch = Tensor::zeros(DType::kI64, {rois});
    for (int64_t r = 0; r < rois; ++r) batch.data<int64_t>()[r] = random_int(rng, 0, x[0] - 1);
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        roi_align_graph(x, rois, mode, ratio, half_pixel, out_h, out_w),
        {random_tensor(rng, x), random_rois(rng, rois, x[2], x[3]), batch},
        kernels::LayoutPolicy::kAuto, 1e-6, threads);
    EXPECT_EQ(steps[0].kernel, "strata:roi_align") << steps[0].reason;
  }
}

TEST(RoiAlignKernel, ManyRoisSplitAmongThreadsAsInMaskRcnn) {
  std::mt19937 rng(122);
  const std::vector<int64_t> x = {1, 64, 20, 20};
  Tensor batch = Tensor::zeros(DType::kI64, {150});
  for (int threads : {1, 2})
    expect_fast_matches_reference(roi_align_graph(x, 150, "avg", 2, false, 7, 7),
                                  {random_tensor(rng, x), random_rois(rng, 150, 20, 20), batch},
                                  kernels::LayoutPolicy::kAuto, 1e-6, threads);
}

TEST(RoiAlignKernel, BadBatchIndexFailsNamingIt) {
  std::mt19937 rng(123);
  const std::vector<int64_t> x = {1, 2, 5, 5};
  Tensor batch = Tensor::zeros(DType::kI64, {3});
  batch.data<int64_t>()[2] = 4;
  runtime::SessionOptions options;
  try {
    run_session(roi_align_graph(x, 3, "avg", 2, true, 2, 2),
                {random_tensor(rng, x), random_rois(rng, 3, 5, 5), batch}, options);
    FAIL() << "expected a failure";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("batch_indices[2] is 4"), std::string::npos) << e.what();
  }
}

TEST(RoiAlignKernel, DeclinesAnAdaptiveSamplingRatio) {
  std::mt19937 rng(124);
  const std::vector<int64_t> x = {1, 2, 6, 6};
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      roi_align_graph(x, 4, "avg", 0, true, 3, 3),
      {random_tensor(rng, x), random_rois(rng, 4, 6, 6), Tensor::zeros(DType::kI64, {4})});
  EXPECT_EQ(steps[0].kernel, "reference");
  EXPECT_NE(steps[0].reason.find("adaptive"), std::string::npos) << steps[0].reason;
}

}  // namespace
}  // namespace strata::test
