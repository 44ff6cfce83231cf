// RNN, GRU and LSTM (src/ops/recurrent.cpp): known values for one unit, direction, sequence
// lengths, the batch-first layout, LSTM's cell state, and bad attributes and inputs.
#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

// A one-unit RNN: W = 1, R = 0.5, over x = [1, 2] for one batch item (or [1, 2] and [3, 4]).
OpCall rnn(std::vector<float> x, int64_t batch, std::map<std::string, ir::Attribute> attrs = {}) {
  attrs["hidden_size"] = attr_int(1);
  OpCall call = op_call("RNN", 14, std::move(attrs));
  const int64_t seq = int64_t(x.size()) / batch;
  call.inputs = {Tensor::from<float>({seq, batch, 1}, std::span<const float>(x)),
                 Tensor::from<float>({1, 1, 1}, {1}), Tensor::from<float>({1, 1, 1}, {0.5f})};
  call.num_outputs = 2;
  return call;
}

TEST(Recurrent, RnnForwardAndReverse) {
  const std::vector<Tensor> forward = run_op(rnn({1, 2}, 1));
  const double h1 = std::tanh(1.0), h2 = std::tanh(2 + 0.5 * h1);
  EXPECT_NEAR(forward[0].to_double()[0], h1, 1e-6);
  EXPECT_NEAR(forward[0].to_double()[1], h2, 1e-6);
  EXPECT_NEAR(forward[1].to_double()[0], h2, 1e-6);  // Y_h: the last state
  const std::vector<Tensor> reverse =
      run_op(rnn({1, 2}, 1, {{"direction", attr_string("reverse")}}));
  const double r1 = std::tanh(2.0), r0 = std::tanh(1 + 0.5 * r1);
  EXPECT_NEAR(reverse[0].to_double()[0], r0, 1e-6);  // Y in time order
  EXPECT_NEAR(reverse[0].to_double()[1], r1, 1e-6);
  EXPECT_NEAR(reverse[1].to_double()[0], r0, 1e-6);
}

TEST(Recurrent, SequenceLengthsStopEachBatchItem) {
  OpCall call = rnn({1, 3, 2, 4}, 2);  // [seq 2, batch 2]: item 0 sees 1, 2; item 1 sees 3
  call.inputs.push_back(Tensor());     // B
  call.inputs.push_back(Tensor::from<int32_t>({2}, {2, 1}));  // sequence_lens
  const std::vector<Tensor> out = run_op(call);
  const std::vector<double> y = out[0].to_double();  // [seq, dirs, batch, 1]
  EXPECT_NEAR(y[1], std::tanh(3.0), 1e-6);
  EXPECT_EQ(y[3], 0.0);  // past item 1's length
  EXPECT_NEAR(out[1].to_double()[1], std::tanh(3.0), 1e-6);
  call.inputs[4] = Tensor::from<int32_t>({2}, {3, 1});  // longer than the sequence
  EXPECT_THROW(run_op(call), Error);
}

// An input size of 0 (X is [seq, batch, 0], W is [1, 1, 0]) leaves the bias and the recurrence:
// h1 = tanh(Wb + Rb), h2 = tanh(Wb + Rb + 0.5·h1). Found by fuzz_graph as a read of an empty W.
TEST(Recurrent, RnnWithInputSizeZeroRunsOnBiasAndState) {
  OpCall call = op_call("RNN", 14, {{"hidden_size", attr_int(1)}});
  call.inputs = {Tensor::zeros(DType::kF32, {2, 1, 0}), Tensor::zeros(DType::kF32, {1, 1, 0}),
                 Tensor::from<float>({1, 1, 1}, {0.5f}),
                 Tensor::from<float>({1, 2}, {0.25f, 0.5f})};
  call.num_outputs = 2;
  const std::vector<Tensor> out = run_op(call);
  const double h1 = std::tanh(0.75), h2 = std::tanh(0.75 + 0.5 * h1);
  EXPECT_NEAR(out[0].to_double()[0], h1, 1e-6);
  EXPECT_NEAR(out[0].to_double()[1], h2, 1e-6);
  EXPECT_NEAR(out[1].to_double()[0], h2, 1e-6);
}

TEST(Recurrent, LstmCellStateAndBatchFirstLayout) {
  // Zero weights: i = o = f = 0.5 and the candidate tanh(0) = 0, so c = 0.5·c0, h = 0.5·tanh(c).
  OpCall call = op_call("LSTM", 14, {{"hidden_size", attr_int(1)}, {"layout", attr_int(1)}});
  call.inputs = {Tensor::from<float>({1, 1, 1}, {7}),
                 Tensor::zeros(DType::kF32, {1, 4, 1}),
                 Tensor::zeros(DType::kF32, {1, 4, 1}),
                 Tensor(),
                 Tensor(),
                 Tensor::zeros(DType::kF32, {1, 1, 1}),
                 Tensor::from<float>({1, 1, 1}, {1})};
  call.num_outputs = 3;
  const std::vector<Tensor> out = run_op(call);
  EXPECT_NEAR(out[2].to_double()[0], 0.5, 1e-6);
  EXPECT_NEAR(out[1].to_double()[0], 0.5 * std::tanh(0.5), 1e-6);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1, 1, 1}));  // [batch, seq, dirs, hidden]
}

TEST(Recurrent, BadAttributesFailNamingThem) {
  EXPECT_THROW(run_op(rnn({1, 2}, 1, {{"direction", attr_string("sideways")}})), Error);
  EXPECT_THROW(run_op(rnn({1, 2}, 1, {{"activations", attr_strings({"Tanh", "Tanh"})}})), Error);
  EXPECT_THROW(run_op(rnn({1, 2}, 1, {{"activations", attr_strings({"Cosine"})}})), Error);
  EXPECT_THROW(run_op(rnn({1, 2}, 1, {{"clip", attr_float(-1)}})), Error);
}

}  // namespace
}  // namespace strata::test
