// DFT and STFT (src/ops/dft.cpp).
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

const Tensor kSignal = Tensor::from<float>({1, 4, 1}, {1, 2, 3, 4});

TEST(DFT, ForwardRealSignal) {
  OpCall call = op_call("DFT", 17);
  call.inputs = {kSignal};
  expect_near(run_op(call)[0], {10, 0, -2, 2, -2, 0, -2, -2});
}

TEST(DFT, OnesidedKeepsHalfTheBins) {
  OpCall call = op_call("DFT", 17, {{"onesided", attr_int(1)}});
  call.inputs = {kSignal};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 3, 2}));
  expect_near(out[0], {10, 0, -2, 2, -2, 0});
}

TEST(DFT, InverseAndInverseOfAHalfSpectrum) {
  OpCall inverse = op_call("DFT", 20, {{"inverse", attr_int(1)}});
  inverse.inputs = {Tensor::from<float>({1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})};
  expect_near(run_op(inverse)[0], {1, 0, 2, 0, 3, 0, 4, 0}, 1e-5f);
  OpCall half = op_call("DFT", 20, {{"inverse", attr_int(1)}, {"onesided", attr_int(1)}});
  half.inputs = {Tensor::from<float>({1, 3, 2}, {10, 0, -2, 2, -2, 0})};
  std::vector<Tensor> out = run_op(half);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 4, 1}));
  expect_near(out[0], {1, 2, 3, 4}, 1e-5f);
}

TEST(DFT, DftLengthPadsAndAxisInput) {
  OpCall call = op_call("DFT", 20);
  call.inputs = {Tensor::from<float>({1, 2, 1}, {1, 1}), Tensor::from<int64_t>({}, {4}),
                 Tensor::from<int64_t>({}, {1})};
  expect_near(run_op(call)[0], {2, 0, 1, -1, 0, 0, 1, 1}, 1e-6f);
}

TEST(DFT, Errors) {
  OpCall last_axis = op_call("DFT", 17, {{"axis", attr_int(2)}});
  last_axis.inputs = {kSignal};
  EXPECT_THROW(run_op(last_axis), Error);
  OpCall components = op_call("DFT", 17);
  components.inputs = {Tensor::from<float>({1, 1, 3}, {1, 2, 3})};
  EXPECT_THROW(run_op(components), Error);
}

TEST(STFT, FramesWithoutAWindow) {
  OpCall call = op_call("STFT", 17);
  call.inputs = {kSignal, Tensor::from<int64_t>({}, {2}), Tensor(), Tensor::from<int64_t>({}, {2})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2, 2, 2}));
  expect_near(out[0], {3, 0, -1, 0, 7, 0, -1, 0});
}

TEST(STFT, WindowWeightsEachFrame) {
  OpCall call = op_call("STFT", 17, {{"onesided", attr_int(0)}});
  call.inputs = {kSignal, Tensor::from<int64_t>({}, {2}), Tensor::from<float>({2}, {0, 1})};
  expect_near(run_op(call)[0], {2, 0, -2, 0, 4, 0, -4, 0});
}

TEST(STFT, Errors) {
  OpCall no_length = op_call("STFT", 17);
  no_length.inputs = {kSignal, Tensor::from<int64_t>({}, {2})};
  EXPECT_THROW(run_op(no_length), Error);
  OpCall too_long = op_call("STFT", 17);
  too_long.inputs = {kSignal, Tensor::from<int64_t>({}, {1}), Tensor(),
                     Tensor::from<int64_t>({}, {5})};
  EXPECT_THROW(run_op(too_long), Error);
}

}  // namespace
}  // namespace strata::test
