// Attention (src/ops/attention.cpp): the softmax-weighted values, masks, causal masking after a
// cache, grouped-query heads, fully masked rows, and bad shapes.
#include <cmath>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall attention(std::vector<Tensor> inputs, std::map<std::string, ir::Attribute> attrs = {},
                 size_t outputs = 1) {
  OpCall call = op_call("Attention", 23, std::move(attrs));
  call.inputs = std::move(inputs);
  call.num_outputs = outputs;
  return call;
}

TEST(Attention, WeightsValuesBySoftmaxOfScaledScores) {
  // One head of size 1: scores q·k / sqrt(1) = [0, 1]; softmax [1, e] / (1 + e).
  const std::vector<Tensor> out = run_op(
      attention({Tensor::from<float>({1, 1, 1, 1}, {1}), Tensor::from<float>({1, 1, 2, 1}, {0, 1}),
                 Tensor::from<float>({1, 1, 2, 1}, {10, 20})}));
  const double e = std::exp(1.0);
  EXPECT_NEAR(out[0].to_double()[0], (10 + 20 * e) / (1 + e), 1e-5);
}

TEST(Attention, MasksCausalCacheAndGroupedHeads) {
  const Tensor q = Tensor::from<float>({1, 2, 1, 1}, {1, 1});  // 2 query heads
  const Tensor k = Tensor::from<float>({1, 1, 1, 1}, {0});     // 1 kv head, 1 new key
  const Tensor v = Tensor::from<float>({1, 1, 1, 1}, {7});
  const Tensor past_k = Tensor::from<float>({1, 1, 1, 1}, {5});
  const Tensor past_v = Tensor::from<float>({1, 1, 1, 1}, {3});
  // A bool mask hiding the cached key: only the new value 7 remains, for both heads.
  const Tensor mask = Tensor::from<bool>({1, 2}, {false, true});
  const std::vector<Tensor> out = run_op(attention({q, k, v, mask, past_k, past_v}, {}, 3));
  EXPECT_EQ(out[0].to_double(), (std::vector<double>{7, 7}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{1, 1, 2, 1}));  // present_key: past, then new
  EXPECT_EQ(out[1].to_double(), (std::vector<double>{5, 0}));
  // Everything masked: zeros, not NaN.
  const Tensor none = Tensor::from<bool>({1, 2}, {false, false});
  EXPECT_EQ(run_op(attention({q, k, v, none, past_k, past_v}))[0].to_double(),
            (std::vector<double>{0, 0}));
}

TEST(Attention, BadShapesFailNamingTheProblem) {
  const Tensor x3 = Tensor::from<float>({1, 1, 4}, {1, 2, 3, 4});
  EXPECT_THROW(run_op(attention({x3, x3, x3})), Error);  // 3-D needs the head counts
  const Tensor q = Tensor::from<float>({1, 3, 1, 1}, {1, 1, 1});
  const Tensor kv = Tensor::from<float>({1, 2, 1, 1}, {1, 1});
  EXPECT_THROW(run_op(attention({q, kv, kv})), Error);  // 3 heads cannot share 2
}

// Found by fuzz_graph (tests/data/fuzz-regressions/fuzz_graph/attention-values-shorter-than-keys):
// the kernel walked V with K's sequence length and read past V's buffer.
TEST(Attention, KeysAndValuesMustAgreeWithEachOtherAndTheQueries) {
  const Tensor q = Tensor::from<float>({1, 1, 1, 1}, {1});
  const Tensor two_keys = Tensor::from<float>({1, 1, 2, 1}, {0, 1});
  const Tensor one_value = Tensor::from<float>({1, 1, 1, 1}, {5});
  EXPECT_THROW(run_op(attention({q, two_keys, one_value})), Error);  // sequence lengths
  const Tensor batch_two = Tensor::from<float>({2, 1, 2, 1}, {0, 1, 2, 3});
  EXPECT_THROW(run_op(attention({q, batch_two, batch_two})), Error);  // batch sizes
  const Tensor two_heads = Tensor::from<float>({1, 2, 2, 1}, {0, 1, 2, 3});
  EXPECT_THROW(run_op(attention({q, two_keys, two_heads})), Error);  // head counts
  const Tensor flat_past = Tensor::from<float>({1, 1}, {0});
  EXPECT_THROW(run_op(attention({q, two_keys, two_keys, Tensor(), flat_past, flat_past})), Error);
  // A cache of keys without one of values (attention-past-key-without-past-value.bin).
  const Tensor past = Tensor::from<float>({1, 1, 1, 1}, {3});
  EXPECT_THROW(run_op(attention({q, two_keys, two_keys, Tensor(), past})), Error);
  EXPECT_THROW(run_op(attention({q, two_keys, two_keys, Tensor(), Tensor(), past})), Error);
}

}  // namespace
}  // namespace strata::test
