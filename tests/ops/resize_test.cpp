#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// Resize with `scales` (opset 19 input order: X, roi, scales, sizes).
OpCall resize_scales(Tensor x, std::vector<float> scales, std::string mode,
                     std::string transform = "") {
  OpCall call;
  call.op_type = "Resize";
  call.opset = 19;
  call.attributes["mode"] = attr_string(std::move(mode));
  if (!transform.empty())
    call.attributes["coordinate_transformation_mode"] = attr_string(transform);
  const int64_t n = int64_t(scales.size());
  call.inputs = {std::move(x), Tensor(), Tensor::from<float>({n}, std::span<const float>(scales))};
  return call;
}

OpCall resize_sizes(Tensor x, std::vector<int64_t> sizes, std::string mode) {
  OpCall call;
  call.op_type = "Resize";
  call.opset = 19;
  call.attributes["mode"] = attr_string(std::move(mode));
  const int64_t n = int64_t(sizes.size());
  call.inputs = {std::move(x), Tensor(), Tensor(),
                 Tensor::from<int64_t>({n}, std::span<const int64_t>(sizes))};
  return call;
}

const Tensor k2x2 = Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4});
const Tensor k2x4 = Tensor::from<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
const Tensor k4x4 =
    Tensor::from<float>({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});

TEST(Resize, NearestUpsample) {
  std::vector<Tensor> out = run_op(resize_scales(k2x2, {1, 1, 2, 3}, "nearest"));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 4, 6}));
  expect_near(out[0], {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(Upsample, ScalesInputFromOpset9) {
  OpCall call = op_call("Upsample", 9);
  call.inputs = {k2x2, Tensor::from<float>({4}, {1, 1, 2, 3})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 4, 6}));
  expect_near(out[0], {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(Upsample, LinearScalesAttributeBeforeOpset9) {
  OpCall call = op_call("Upsample", 7,
                        {{"mode", attr_string("linear")}, {"scales", attr_floats({1, 1, 2, 2})}});
  call.inputs = {k2x2};
  expect_near(run_op(call)[0], {1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4, 4, 3, 3.5f, 4, 4});
  OpCall missing = op_call("Upsample", 7);
  missing.inputs = {k2x2};
  EXPECT_THROW(run_op(missing), Error);
}

// Scale 1 on every axis (torchvision detectors resize an image already at the model's size): the
// input itself, in every mode and coordinate transformation.
TEST(Resize, ScaleOneIsTheInputInEveryMode) {
  for (const char* mode : {"nearest", "linear", "cubic"})
    for (const char* transform :
         {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"}) {
      SCOPED_TRACE(testing::Message() << mode << " " << transform);
      const Tensor out = run_op(resize_scales(k4x4, {1, 1, 1, 1}, mode, transform))[0];
      EXPECT_EQ(out.shape(), k4x4.shape());
      EXPECT_EQ(out.to_double(), k4x4.to_double());
    }
}

TEST(Resize, LinearDownsampleHalfPixel) {
  expect_near(run_op(resize_scales(k2x4, {1, 1, 0.6f, 0.6f}, "linear"))[0],
              {2.6666665f, 4.333333f});
}

TEST(Resize, LinearAlignCornersUsesTheRealResizedLength) {
  // Output width 2 comes from 4 * 0.6 = 2.4, which align_corners divides by.
  expect_near(run_op(resize_scales(k2x4, {1, 1, 0.6f, 0.6f}, "linear", "align_corners"))[0],
              {1, 3.142857f});
}

TEST(Resize, CubicUpsampleFirstRow) {
  std::vector<Tensor> out = run_op(resize_scales(k4x4, {1, 1, 2, 2}, "cubic"));
  ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 8, 8}));
  const float expected[] = {0.47265625f, 0.76953125f, 1.2460938f, 1.875f,
                            2.28125f,    2.9101562f,  3.3867188f, 3.6835938f};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(out[0].data<float>()[i], expected[i], 1e-5f);
}

TEST(Resize, CubicWithAHalfReproducesARampAwayFromTheEdges) {
  OpCall call = resize_scales(Tensor::from<double>({8}, {0, 1, 2, 3, 4, 5, 6, 7}), {2}, "cubic");
  call.attributes["cubic_coeff_a"] = attr_float(-0.5f);  // the one kernel exact on ramps
  std::vector<Tensor> out = run_op(call);
  for (int x = 3; x <= 12; ++x) EXPECT_NEAR(out[0].data<double>()[x], (x + 0.5) / 2 - 0.5, 1e-12);
}

TEST(Resize, AntialiasLinearDownsample) {
  OpCall call = resize_scales(k4x4, {1, 1, 0.6f, 0.6f}, "linear");
  call.attributes["antialias"] = attr_int(1);
  expect_near(run_op(call)[0], {2.875f, 4.5f, 9.375f, 11});
}

TEST(Resize, SizesWithAxesAndKeepAspectRatio) {
  OpCall call = resize_sizes(k2x4, {1, 3}, "nearest");
  call.attributes["axes"] = attr_ints({2, 3});
  call.attributes["keep_aspect_ratio_policy"] = attr_string("not_larger");
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 1, 2}));
  expect_near(out[0], {1, 3});
}

TEST(Resize, NearestModeCeil) {
  OpCall call = resize_sizes(k4x4, {1, 1, 8, 8}, "nearest");
  call.attributes["nearest_mode"] = attr_string("ceil");
  const std::vector<Tensor> out = run_op(call);
  const float first_row[] = {1, 2, 2, 3, 3, 4, 4, 4};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[0].data<float>()[i], first_row[i]);
}

TEST(Resize, TfCropAndResizeExtrapolates) {
  OpCall call = resize_sizes(k4x4, {1, 1, 3, 3}, "linear");
  call.attributes["coordinate_transformation_mode"] = attr_string("tf_crop_and_resize");
  call.attributes["extrapolation_value"] = attr_float(10);
  call.inputs[1] = Tensor::from<float>({8}, {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 1.7f});
  expect_near(run_op(call)[0], {7.6f, 10, 10, 12.4f, 10, 10, 10, 10, 10}, 1e-4f);
}

TEST(Resize, NanRoiReadsInsideTheInput) {
  OpCall call = resize_sizes(k4x4, {1, 1, 2, 2}, "nearest");
  call.attributes["coordinate_transformation_mode"] = attr_string("tf_crop_and_resize");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  call.inputs[1] = Tensor::from<float>({8}, {0, 0, nan, nan, 1, 1, nan, nan});
  EXPECT_EQ(run_op(call)[0].numel(), 4);
}

TEST(Resize, Opset10IsAsymmetricWithFlooringNearest) {
  OpCall call;
  call.op_type = "Resize";
  call.opset = 10;
  call.attributes["mode"] = attr_string("linear");
  call.inputs = {Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({1}, {2})};
  expect_near(run_op(call)[0], {1, 1.5f, 2, 2});
  call.attributes["mode"] = attr_string("nearest");
  call.inputs = {Tensor::from<float>({3}, {1, 2, 3}), Tensor::from<float>({1}, {2})};
  expect_near(run_op(call)[0], {1, 1, 2, 2, 3, 3});
}

TEST(Resize, IntegersRoundAndInt64CopiesExactly) {
  std::vector<Tensor> u8 =
      run_op(resize_scales(Tensor::from<uint8_t>({2}, {0, 255}), {2}, "linear"));
  EXPECT_EQ(values_of<uint8_t>(u8[0]), (std::vector<uint8_t>{0, 64, 191, 255}));
  const int64_t big = (int64_t(1) << 60) + 1;  // not representable as a double
  std::vector<Tensor> i64 =
      run_op(resize_scales(Tensor::from<int64_t>({1}, {big}), {2}, "nearest"));
  EXPECT_EQ(values_of<int64_t>(i64[0]), (std::vector<int64_t>{big, big}));
}

TEST(Resize, SymbolicDimsStaySymbolicForWholeScales) {
  ops::Meta x, scales;
  x.dtype = DType::kF32;
  x.shape = Shape{Dim::symbol("N"), 3};
  scales.dtype = DType::kF32;
  scales.shape = Shape{2};
  scales.value = std::make_shared<const Tensor>(Tensor::from<float>({2}, {2, 1}));
  std::vector<const ops::Meta*> in = {&x, nullptr, &scales};
  std::vector<ops::Meta> out(1);
  ops::InferContext ctx(in, out);
  ir::Graph graph;
  ir::Node node;
  node.op_type = "Resize";
  std::unique_ptr<ops::Op> op = ops::find_op("Resize")(ops::NodeInfo(graph, node, 19));
  op->infer(ctx);
  EXPECT_EQ(out[0].shape.str(), "[(N*2),3]");
  scales.value = std::make_shared<const Tensor>(Tensor::from<float>({2}, {1.5f, 1}));
  EXPECT_THROW(op->infer(ctx), NotStatic);
}

TEST(Resize, Errors) {
  OpCall both = resize_scales(k2x2, {1, 1, 2, 2}, "nearest");
  both.inputs.push_back(Tensor::from<int64_t>({4}, {1, 1, 4, 4}));
  EXPECT_THROW(run_op(both), Error);
  EXPECT_THROW(run_op(resize_scales(k2x2, {1, 1, -2, 2}, "nearest")), Error);
  EXPECT_THROW(run_op(resize_scales(k2x2, {1, 2, 2}, "nearest")), Error);  // count
  EXPECT_THROW(run_op(resize_scales(k2x2, {1, 1, 2, 2}, "bicubic")), Error);
  EXPECT_THROW(run_op(resize_scales(k2x2, {1, 1, 2, 2}, "linear", "tf_half_pixel_for_nn")),
               Error);  // removed in opset 13
  EXPECT_THROW(run_op(resize_scales(Tensor::from<bool>({2}, {true, false}), {2}, "linear")), Error);
  EXPECT_THROW(run_op(resize_scales(k2x2, {1, 1, 1e30f, 1}, "nearest")), Error);  // too large
  EXPECT_THROW(run_op(resize_sizes(Tensor::zeros(DType::kF32, {0}), {3}, "nearest")), Error);
  OpCall neither = resize_scales(k2x2, {}, "nearest");
  EXPECT_THROW(run_op(neither), Error);
}

}  // namespace
}  // namespace strata::test
