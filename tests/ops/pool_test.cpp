#include <cmath>

#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

const std::vector<float> kGrid = {1, 3, 2, 0, 5, 4, 1, 1, 2, 2, 0, 7, 3,
                                  1, 1, 2, 2, 8, 1, 0, 6, 1, 1, 4, 3};

OpCall pool(const char* op_type, std::vector<int64_t> kernel, Tensor x) {
  OpCall call;
  call.op_type = op_type;
  call.attributes["kernel_shape"] = attr_ints(std::move(kernel));
  call.inputs = {std::move(x)};
  return call;
}

OpCall max_pool_grid() {
  return pool("MaxPool", {3, 3}, Tensor::from<float>({1, 1, 5, 5}, kGrid));
}

TEST(MaxPool, Strides) {
  OpCall call = max_pool_grid();
  call.attributes["strides"] = attr_ints({2, 2});
  expect_near(run_op(call)[0], {7, 5, 8, 8});
}

TEST(MaxPool, IndicesRowAndColumnMajor) {
  OpCall call = pool("MaxPool", {2, 2}, Tensor::from<float>({1, 1, 5, 5}, kGrid));
  call.attributes["strides"] = attr_ints({2, 2});
  call.attributes["pads"] = attr_ints({0, 0, 1, 1});
  call.num_outputs = 2;
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {4, 2, 5, 7, 8, 1, 6, 4, 3});
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{5, 2, 4, 11, 17, 14, 20, 23, 24}));
  call.attributes["storage_order"] = attr_int(1);
  out = run_op(call);
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 10, 20, 7, 13, 22, 4, 19, 24}));
}

TEST(MaxPool, IndicesCountEarlierPlanes) {
  OpCall call = pool("MaxPool", {2}, Tensor::from<float>({1, 2, 2}, {1, 0, 3, 4}));
  call.num_outputs = 2;
  EXPECT_EQ(values_of<int64_t>(run_op(call)[1]), (std::vector<int64_t>{0, 3}));
}

TEST(MaxPool, CeilModeKeepsPartialWindows) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[size_t(i)] = float(i + 1);
  OpCall call = pool("MaxPool", {3, 3}, Tensor::from<float>({1, 1, 4, 4}, x));
  call.attributes["strides"] = attr_ints({2, 2});
  call.attributes["ceil_mode"] = attr_int(1);
  expect_near(run_op(call)[0], {11, 12, 15, 16});
  call.attributes["ceil_mode"] = attr_int(0);
  expect_near(run_op(call)[0], {11});
}

TEST(MaxPool, CeilModeDropsWindowStartingInEndPadding) {
  OpCall call = pool("MaxPool", {1, 1}, Tensor::from<float>({1, 1, 2, 2}, {1, 2, 3, 4}));
  call.attributes["strides"] = attr_ints({2, 2});
  call.attributes["ceil_mode"] = attr_int(1);
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 1, 1}));
  expect_near(out[0], {1});
}

TEST(MaxPool, Dilations) {
  OpCall call = pool("MaxPool", {2}, Tensor::from<float>({1, 1, 5}, {1, 5, 2, 4, 3}));
  call.attributes["dilations"] = attr_ints({2});
  expect_near(run_op(call)[0], {2, 5, 3});
}

TEST(MaxPool, SmallIntegers) {
  OpCall call = pool("MaxPool", {2}, Tensor::from<uint8_t>({1, 1, 4}, {1, 255, 3, 7}));
  call.attributes["auto_pad"] = attr_string("SAME_UPPER");
  EXPECT_EQ(values_of<uint8_t>(run_op(call)[0]), (std::vector<uint8_t>{255, 255, 7, 7}));
  call.inputs = {Tensor::from<int8_t>({1, 1, 4}, {-5, -7, -3, -128})};
  EXPECT_EQ(values_of<int8_t>(run_op(call)[0]), (std::vector<int8_t>{-5, -3, -3, -128}));
}

TEST(AveragePool, CountIncludePad) {
  OpCall call = pool("AveragePool", {3}, Tensor::from<float>({1, 1, 4}, {1, 2, 3, 4}));
  call.attributes["pads"] = attr_ints({1, 1});
  expect_near(run_op(call)[0], {1.5, 2, 3, 3.5});
  call.attributes["count_include_pad"] = attr_int(1);
  expect_near(run_op(call)[0], {1, 2, 3, 7.f / 3});
}

TEST(AveragePool, CeilModeOverhangIsNotCountedAsPadding) {
  OpCall call = pool("AveragePool", {3}, Tensor::from<float>({1, 1, 6}, {1, 2, 3, 4, 5, 6}));
  call.attributes["pads"] = attr_ints({1, 1});
  call.attributes["strides"] = attr_ints({2});
  call.attributes["ceil_mode"] = attr_int(1);
  expect_near(run_op(call)[0], {1.5, 3, 5, 6});
  call.attributes["count_include_pad"] = attr_int(1);
  expect_near(run_op(call)[0], {1, 3, 5, 3});
}

TEST(AveragePool, AutoPadSame) {
  OpCall call = pool("AveragePool", {2}, Tensor::from<float>({1, 1, 4}, {1, 2, 3, 4}));
  call.attributes["auto_pad"] = attr_string("SAME_LOWER");
  expect_near(run_op(call)[0], {1, 1.5, 2.5, 3.5});
  call.attributes["auto_pad"] = attr_string("SAME_UPPER");
  expect_near(run_op(call)[0], {1.5, 2.5, 3.5, 4});
}

TEST(AveragePool, TwoDimensionalDoubleAndHalf) {
  OpCall call = pool("AveragePool", {2, 2}, Tensor::from<double>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values_of<double>(run_op(call)[0]), (std::vector<double>{3, 4}));
  call.inputs = {Tensor::from<f16>({1, 1, 2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f})};
  std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].dtype(), DType::kF16);
  EXPECT_EQ(float(out[0].data<f16>()[1]), 4.f);
}

TEST(AveragePool, EmptyBatch) {
  OpCall call = pool("AveragePool", {2}, Tensor::zeros(DType::kF32, {0, 3, 4}));
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{0, 3, 3}));
}

TEST(Pool, Errors) {
  OpCall call = max_pool_grid();
  call.attributes.erase("kernel_shape");
  EXPECT_THROW(run_op(call), Error);
  call = max_pool_grid();
  call.attributes["kernel_shape"] = attr_ints({3});  // one axis for two spatial axes
  EXPECT_THROW(run_op(call), Error);
  call = max_pool_grid();
  call.attributes["storage_order"] = attr_int(2);
  EXPECT_THROW(run_op(call), Error);
  call = max_pool_grid();
  call.attributes["pads"] = attr_ints({0, 0, -1, 0});
  EXPECT_THROW(run_op(call), Error);
  call = max_pool_grid();
  call.attributes["kernel_shape"] = attr_ints({6, 6});  // larger than the input
  EXPECT_THROW(run_op(call), Error);
  call = pool("AveragePool", {2}, Tensor::from<int32_t>({1, 1, 4}, {1, 2, 3, 4}));
  EXPECT_THROW(run_op(call), Error);
  call = pool("MaxPool", {2}, Tensor::from<int32_t>({1, 1, 4}, {1, 2, 3, 4}));
  EXPECT_THROW(run_op(call), Error);
  call = pool("MaxPool", {2}, Tensor::from<float>({4}, {1, 2, 3, 4}));
  EXPECT_THROW(run_op(call), Error);  // no spatial axis
  // A kernel of 2^22 per axis, padded to fit one pixel: its tap count passes int64 (read after
  // Col2Im's find); a size error, not an overflow.
  const int64_t big = int64_t(1) << 22;
  call = pool("AveragePool", {big, big, big}, Tensor::from<float>({1, 1, 1, 1, 1}, {1}));
  call.attributes["pads"] = attr_ints({big, big, big, big, big, big});
  call.attributes["strides"] = attr_ints({big, big, big});  // a small output: 2 per axis
  expect_error([&] { run_op(call); }, {"size overflow"});
}

// LpPool: the p-norm of each window (padding does not count).
TEST(LpPool, PNormOfEachWindow) {
  OpCall call =
      op_call("LpPool", 18,
              {{"kernel_shape", attr_ints({2})}, {"p", attr_int(2)}, {"pads", attr_ints({1, 0})}});
  call.inputs = {Tensor::from<float>({1, 1, 3}, {3, 4, 12})};
  // windows: [pad, 3], [3, 4], [4, 12]
  const std::vector<double> y = run_op(call)[0].to_double();
  ASSERT_EQ(y.size(), 3u);
  EXPECT_NEAR(y[0], 3, 1e-6);
  EXPECT_NEAR(y[1], 5, 1e-6);
  EXPECT_NEAR(y[2], std::sqrt(160.0), 1e-5);
  OpCall l1 = op_call("LpPool", 18, {{"kernel_shape", attr_ints({3})}, {"p", attr_int(1)}});
  l1.inputs = {Tensor::from<float>({1, 1, 3}, {-1, 2, -3})};
  EXPECT_NEAR(run_op(l1)[0].to_double()[0], 6, 1e-6);
}

}  // namespace
}  // namespace strata::test
