// MelWeightMatrix (src/ops/mel_weight_matrix.cpp), with ONNX's example's parameters: 8 mel bins,
// dft_length 16, 8192 Hz, edges 0 and 4096 Hz. The filter edges fall on spectrogram bins
// 0 0 0 1 1 2 3 4 5 6, so each filter is one bin wide.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall mel(float lower, float upper) {
  OpCall call = op_call("MelWeightMatrix", 17);
  call.inputs = {Tensor::from<int32_t>({}, {8}), Tensor::from<int32_t>({}, {16}),
                 Tensor::from<int32_t>({}, {8192}), Tensor::from<float>({}, {lower}),
                 Tensor::from<float>({}, {upper})};
  return call;
}

TEST(MelWeightMatrix, OneBinFilters) {
  std::vector<Tensor> out = run_op(mel(0, 4096));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{9, 8}));
  std::vector<float> expected(72, 0.0f);
  const int peaks[8][2] = {{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}};
  for (const auto& p : peaks) expected[size_t(p[0] * 8 + p[1])] = 1;
  expect_near(out[0], expected);
}

TEST(MelWeightMatrix, RejectsInvertedEdges) {
  EXPECT_THROW(run_op(mel(100, 50)), Error);
}

}  // namespace
}  // namespace strata::test
