// LinearAttention (src/ops/linear_attention.cpp): each update rule on one head of size 1, where
// the state is a number: q = [1, 2], k = [1, 1], v = [3, 4], scale 1.
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall linear_attention(std::string rule, Tensor decay, Tensor beta) {
  OpCall call = op_call("LinearAttention", 27,
                        {{"q_num_heads", attr_int(1)},
                         {"kv_num_heads", attr_int(1)},
                         {"scale", attr_float(1)},
                         {"update_rule", attr_string(std::move(rule))}});
  call.inputs = {Tensor::from<float>({1, 2, 1}, {1, 2}),
                 Tensor::from<float>({1, 2, 1}, {1, 1}),
                 Tensor::from<float>({1, 2, 1}, {3, 4}),
                 Tensor(),
                 std::move(decay),
                 std::move(beta)};
  call.num_outputs = 2;
  return call;
}

const Tensor kHalfDecay = Tensor::from<float>({1, 2, 1}, {-0.6931472f, -0.6931472f});  // ln 0.5

TEST(LinearAttention, LinearRuleSumsOuterProducts) {
  std::vector<Tensor> out = run_op(linear_attention("linear", Tensor(), Tensor()));
  expect_near(out[0], {3, 14});  // S = 3 then 7
  expect_near(out[1], {7});
}

TEST(LinearAttention, GatedRuleDecaysTheState) {
  std::vector<Tensor> out = run_op(linear_attention("gated", kHalfDecay, Tensor()));
  expect_near(out[0], {3, 11});  // S = 3 then 0.5·3 + 4
}

TEST(LinearAttention, DeltaRulesCorrectTheStoredValue) {
  const Tensor beta = Tensor::from<float>({1, 2, 1}, {1, 0.5f});
  expect_near(run_op(linear_attention("delta", Tensor(), beta))[0], {3, 7});  // 3 + 0.5·(4 - 3)
  const Tensor one = Tensor::from<float>({1, 2, 1}, {1, 1});
  expect_near(run_op(linear_attention("gated_delta", kHalfDecay, one))[0], {3, 8});
}

TEST(LinearAttention, QueryHeadsShareAKvHead) {
  OpCall call =
      op_call("LinearAttention", 27, {{"q_num_heads", attr_int(2)}, {"kv_num_heads", attr_int(1)}});
  call.attributes["update_rule"] = attr_string("linear");
  call.inputs = {Tensor::from<float>({1, 1, 2}, {1, 2}), Tensor::from<float>({1, 1, 1}, {1}),
                 Tensor::from<float>({1, 1, 1}, {3})};
  expect_near(run_op(call)[0], {3, 6});  // dk = 1: default scale 1
}

TEST(LinearAttention, Errors) {
  EXPECT_THROW(run_op(linear_attention("gated", Tensor(), Tensor())), Error);  // no decay
  EXPECT_THROW(run_op(linear_attention("delta", Tensor(), Tensor())), Error);  // no beta
  EXPECT_THROW(run_op(linear_attention("mamba", Tensor(), Tensor())), Error);
  OpCall heads =
      op_call("LinearAttention", 27, {{"q_num_heads", attr_int(3)}, {"kv_num_heads", attr_int(2)}});
  heads.inputs = {Tensor::from<float>({1, 1, 3}, {1, 2, 3}), Tensor::from<float>({1, 1, 2}, {1, 1}),
                  Tensor::from<float>({1, 1, 2}, {3, 3})};
  EXPECT_THROW(run_op(heads), Error);
}

}  // namespace
}  // namespace strata::test
