#include "ops/conv_geometry.h"
#include "ops/infer_util.h"

namespace strata::test {
namespace {

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = float(i);
  return v;
}

// X = 0..24 as [1,1,5,5] and a 3x3 kernel of ones: the ONNX "basic conv" example.
OpCall basic_conv() {
  OpCall call = op_call("Conv");
  call.inputs = {Tensor::from<float>({1, 1, 5, 5}, iota(25)),
                 Tensor::from<float>({1, 1, 3, 3}, std::vector<float>(9, 1.f))};
  call.attributes["kernel_shape"] = attr_ints({3, 3});
  return call;
}

TEST(Conv, NoPadding) {
  expect_near(run_op(basic_conv())[0], {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(Conv, SymmetricPadding) {
  OpCall call = basic_conv();
  call.attributes["pads"] = attr_ints({1, 1, 1, 1});
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 5, 5}));
  expect_near(out[0], {12,  21, 27, 33,  24,  33,  54,  63, 72,  51,  63,  99, 108,
                       117, 81, 93, 144, 153, 162, 111, 72, 111, 117, 123, 84});
}

TEST(Conv, StridesAndAsymmetricPadding) {
  OpCall call = op_call("Conv");
  call.inputs = {Tensor::from<float>({1, 1, 7, 5}, iota(35)),
                 Tensor::from<float>({1, 1, 3, 3}, std::vector<float>(9, 1.f))};
  call.attributes["pads"] = attr_ints({1, 0, 1, 0});
  call.attributes["strides"] = attr_ints({2, 2});
  std::vector<Tensor> out = run_op(call);  // kernel_shape comes from W
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 4, 2}));
  expect_near(out[0], {21, 33, 99, 117, 189, 207, 171, 183});
}

TEST(Conv, AutoPadSameUpperWithStrides) {
  OpCall call = basic_conv();
  call.attributes["auto_pad"] = attr_string("SAME_UPPER");
  call.attributes["strides"] = attr_ints({2, 2});
  expect_near(run_op(call)[0], {12, 27, 24, 63, 108, 81, 72, 117, 84});
}

TEST(Conv, AutoPadValidIgnoresPads) {
  OpCall call = basic_conv();
  call.attributes["auto_pad"] = attr_string("VALID");
  call.attributes["pads"] = attr_ints({1, 1, 1, 1});
  expect_near(run_op(call)[0], {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(Conv, GroupsWithBias1d) {
  OpCall call = op_call("Conv");
  call.attributes["group"] = attr_int(2);
  call.inputs = {Tensor::from<float>({1, 4, 3}, iota(12)),
                 Tensor::from<float>({6, 2, 1}, {1, 2, -1, 1, 0.5, 0.5, 2, 0, 1, 1, 3, -1}),
                 Tensor::from<float>({6}, {1, 2, 3, 4, 5, 6})};
  expect_near(run_op(call)[0],
              {7, 10, 13, 5, 5, 5, 4.5, 5.5, 6.5, 16, 18, 20, 20, 22, 24, 15, 17, 19});
}

TEST(Conv, DepthwiseDilatedPadded) {
  OpCall call = op_call("Conv");
  call.attributes["group"] = attr_int(2);
  call.attributes["dilations"] = attr_ints({2});
  call.attributes["pads"] = attr_ints({1, 1});
  call.inputs = {Tensor::from<float>({1, 2, 3}, iota(6)),
                 Tensor::from<float>({2, 1, 2}, {1, -1, 2, 0.5})};
  expect_near(run_op(call)[0], {-1, -2, 1, 2, 8.5, 8});
}

TEST(Conv, ThreeDimensional) {
  OpCall call = op_call("Conv");
  call.attributes["pads"] = attr_ints({0, 0, 0, 1, 1, 1});
  call.inputs = {Tensor::from<float>({1, 1, 2, 2, 2}, iota(8)),
                 Tensor::from<float>({1, 1, 2, 2, 2}, std::vector<float>(8, 1.f))};
  expect_near(run_op(call)[0], {28, 16, 18, 10, 22, 12, 13, 7});
}

TEST(Conv, DoubleAndHalf) {
  OpCall call = op_call("Conv");
  call.inputs = {Tensor::from<double>({1, 1, 3}, {1, 2, 3}),
                 Tensor::from<double>({1, 1, 2}, {1, 10})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(values_of<double>(out[0]), (std::vector<double>{21, 32}));
  call.inputs = {Tensor::from<f16>({1, 1, 3}, {1.f, 2.f, 3.f}),
                 Tensor::from<f16>({1, 1, 2}, {1.f, 10.f})};
  out = run_op(call);
  ASSERT_EQ(out[0].dtype(), DType::kF16);
  EXPECT_EQ(float(out[0].data<f16>()[0]), 21.f);
  EXPECT_EQ(float(out[0].data<f16>()[1]), 32.f);
}

TEST(Conv, EmptyBatch) {
  OpCall call = basic_conv();
  call.inputs[0] = Tensor::zeros(DType::kF32, {0, 1, 5, 5});
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{0, 1, 3, 3}));
}

TEST(Conv, Errors) {
  OpCall call = basic_conv();
  call.inputs[1] = Tensor::from<float>({1, 2, 3, 3}, std::vector<float>(18, 1.f));
  EXPECT_THROW(run_op(call), Error);  // X has 1 channel, W wants 2
  call = basic_conv();
  call.attributes["kernel_shape"] = attr_ints({2, 2});
  EXPECT_THROW(run_op(call), Error);  // kernel_shape disagrees with W
  call = basic_conv();
  call.attributes["pads"] = attr_ints({1, 1});
  EXPECT_THROW(run_op(call), Error);  // pads need 2 per axis
  call = basic_conv();
  call.attributes["auto_pad"] = attr_string("SAME");
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.attributes["strides"] = attr_ints({0, 1});
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.attributes["group"] = attr_int(0);
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.inputs.push_back(Tensor::from<float>({2}, {1, 2}));  // bias of the wrong size
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.inputs[0] = Tensor::zeros(DType::kF32, {1, 1, 2, 2});  // smaller than the kernel
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.inputs[0] = Tensor::zeros(DType::kI32, {1, 1, 5, 5});
  call.inputs[1] = Tensor::zeros(DType::kI32, {1, 1, 3, 3});
  EXPECT_THROW(run_op(call), Error);
  call = basic_conv();
  call.inputs[1] = Tensor::zeros(DType::kF32, {1, 1, 3});  // W rank differs from X
  EXPECT_THROW(run_op(call), Error);
}

TEST(ConvGeometry, SymbolicSpatialDimsStaySymbolic) {
  OpCall call = op_call("Conv");
  call.attributes["pads"] = attr_ints({1, 1, 1, 1});
  call.attributes["strides"] = attr_ints({1, 2});
  const Dim n = Dim::symbol("N"), h = Dim::symbol("H"), w = Dim::symbol("W");
  std::vector<ops::Meta> out = infer_only(
      call, {meta(DType::kF32, Shape{n, 3, h, w}), meta(DType::kF32, Shape{8, 3, 3, 3})});
  EXPECT_EQ(out[0].shape.str(), "[N,8,H,(((W-1)//2)+1)]");

  call.attributes.clear();
  call.attributes["auto_pad"] = attr_string("SAME_LOWER");
  call.attributes["strides"] = attr_ints({2, 2});
  out = infer_only(call,
                   {meta(DType::kF32, Shape{n, 3, h, w}), meta(DType::kF32, Shape{8, 3, 3, 3})});
  EXPECT_EQ(out[0].shape.str(), "[N,8,ceil(H/2),ceil(W/2)]");

  OpCall transpose = op_call("ConvTranspose");
  transpose.attributes["strides"] = attr_ints({2, 2});
  out = infer_only(transpose,
                   {meta(DType::kF32, Shape{n, 3, h, w}), meta(DType::kF32, Shape{3, 4, 3, 3})});
  EXPECT_EQ(out[0].shape.str(), "[N,4,((H*2)+1),((W*2)+1)]");

  OpCall pool = op_call("MaxPool");
  pool.attributes["kernel_shape"] = attr_ints({2, 2});
  pool.attributes["ceil_mode"] = attr_int(1);
  EXPECT_THROW(infer_only(pool, {meta(DType::kF32, Shape{n, 3, h, w})}), NotStatic);
}

TEST(ConvGeometry, SameLowerPutsTheOddPadFirst) {
  ops::Window w;
  w.kernel = {2};
  w.strides = {1};
  w.dilations = {1};
  w.pads_begin = w.pads_end = {0};
  w.auto_pad = ops::AutoPad::kSameLower;
  EXPECT_EQ(ops::with_forward_pads(w, {5}).pads_begin, (std::vector<int64_t>{1}));
  w.auto_pad = ops::AutoPad::kSameUpper;
  EXPECT_EQ(ops::with_forward_pads(w, {5}).pads_begin, (std::vector<int64_t>{0}));
  EXPECT_EQ(ops::with_forward_pads(w, {5}).pads_end, (std::vector<int64_t>{1}));
}

TEST(Conv, Cost) {
  OpCall call = basic_conv();
  call.inputs.push_back(Tensor::from<float>({1}, {0}));
  std::vector<ops::Meta> in = {meta(DType::kF32, Shape{2, 1, 5, 5}),
                               meta(DType::kF32, Shape{1, 1, 3, 3}), meta(DType::kF32, Shape{1})};
  in[1].value = std::make_shared<const Tensor>(call.inputs[1]);
  std::vector<ops::Meta> out = infer_only(call, in);
  ir::Graph graph;
  ir::Node node;
  node.op_type = "Conv";
  ops::NodeInfo info(graph, node, 17);
  std::vector<const ops::Meta*> in_ptrs = {&in[0], &in[1], &in[2]};
  ops::CostContext ctx(in_ptrs, out);
  std::optional<ops::Cost> cost = ops::find_op("Conv")(info)->cost(ctx);
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->macs, 2 * 9 * 9);            // N * M * out pixels * C * kernel
  EXPECT_EQ(cost->flops, 2 * 2 * 9 * 9 + 18);  // plus one bias add per output
  EXPECT_EQ(cost->param_bytes, 9 * 4);         // only W is constant
}

}  // namespace
}  // namespace strata::test
