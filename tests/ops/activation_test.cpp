#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

const std::vector<float> kX = {-2.0f, -0.5f, 0.0f, 1.5f};

// Expected values from numpy in double precision.
struct ActivationCase {
  const char* op_type;
  std::map<std::string, ir::Attribute> attributes;
  std::vector<float> expected;
};

TEST(Activation, FloatActivationsMatchNumpy) {
  const ActivationCase cases[] = {
      {"Elu", {}, {-0.8646647f, -0.3934693f, 0, 1.5f}},
      {"Elu", {{"alpha", attr_float(2)}}, {-1.729329f, -0.7869387f, 0, 1.5f}},
      {"Gelu", {}, {-0.04550026f, -0.1542688f, 0, 1.399789f}},
      {"Gelu", {{"approximate", attr_string("tanh")}}, {-0.04540231f, -0.154286f, 0, 1.399572f}},
      {"HardSigmoid", {}, {0.1f, 0.4f, 0.5f, 0.8f}},
      {"HardSigmoid",
       {{"alpha", attr_float(0.5f)}, {"beta", attr_float(0.6f)}},
       {0, 0.35f, 0.6f, 1}},
      {"HardSwish", {}, {-0.3333333f, -0.2083333f, 0, 1.125f}},
      {"LeakyRelu", {}, {-0.02f, -0.005f, 0, 1.5f}},
      {"Selu", {}, {-1.520166f, -0.6917582f, 0, 1.576052f}},
      {"Selu",
       {{"alpha", attr_float(2)}, {"gamma", attr_float(3)}},
       {-5.187988f, -2.360816f, 0, 4.5f}},
      {"Swish", {}, {-0.2384058f, -0.1887703f, 0, 1.226362f}},
      {"Shrink", {{"bias", attr_float(0.2f)}}, {-1.8f, 0, 0, 1.3f}},
      {"ThresholdedRelu", {}, {0, 0, 0, 1.5f}},
      {"ThresholdedRelu", {{"alpha", attr_float(-1.0f)}}, {0, -0.5f, 0, 1.5f}},
      {"Shrink", {{"lambd", attr_float(0.4f)}}, {-2.0f, -0.5f, 0, 1.5f}},
      {"Swish", {{"alpha", attr_float(0.5f)}}, {-0.5378828f, -0.2189117f, 0, 1.018768f}},
      {"Celu", {}, {-0.8646647f, -0.3934693f, 0, 1.5f}},
      {"Celu", {{"alpha", attr_float(2)}}, {-1.264241f, -0.4423984f, 0, 1.5f}},
  };
  for (const ActivationCase& c : cases) {
    SCOPED_TRACE(c.op_type);
    OpCall call = op_call(c.op_type, 20, c.attributes);
    call.inputs = {Tensor::from<float>({2, 2}, std::span(kX))};
    expect_near(run_op(call)[0], c.expected);
  }
}

TEST(Activation, CeluRejectsZeroAlpha) {
  OpCall call = op_call("Celu", 12, {{"alpha", attr_float(0)}});
  call.inputs = {Tensor::from<float>({1}, {1})};
  EXPECT_THROW(run_op(call), Error);
}

TEST(SwiGLU, GatesBBySwishOfA) {
  OpCall call = op_call("SwiGLU", 28);
  call.inputs = {Tensor::from<float>({2, 2}, std::span(kX)),
                 Tensor::from<float>({2, 2}, {1, 2, 3, 4})};
  expect_near(run_op(call)[0], {-0.2384058f, -0.3775406f, 0, 4.905448f});
  OpCall alpha = op_call("SwiGLU", 28, {{"alpha", attr_float(0.5f)}});
  alpha.inputs = {Tensor::from<float>({2, 2}, std::span(kX)),
                  Tensor::from<float>({2, 2}, {1, 1, 1, 2})};
  expect_near(run_op(alpha)[0], {-0.5378828f, -0.2189117f, 0, 2.037536f});
}

TEST(SwiGLU, RejectsMismatchedInputs) {
  OpCall shape = op_call("SwiGLU", 28);
  shape.inputs = {Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({1}, {1})};
  EXPECT_THROW(run_op(shape), Error);
  OpCall dtype = op_call("SwiGLU", 28);
  dtype.inputs = {Tensor::from<float>({1}, {1}), Tensor::from<double>({1}, {1})};
  EXPECT_THROW(run_op(dtype), Error);
}

TEST(Activation, GeluRejectsUnknownApproximation) {
  OpCall call = op_call("Gelu", 20, {{"approximate", attr_string("erf")}});
  call.inputs = {Tensor::from<float>({1}, {1})};
  EXPECT_THROW(run_op(call), Error);
}

TEST(Activation, FloatActivationsRejectIntegers) {
  OpCall call = op_call("Elu");
  call.inputs = {Tensor::from<int32_t>({1}, {1})};
  EXPECT_THROW(run_op(call), Error);
}

TEST(Activation, Float16IsComputedInFloat) {
  OpCall call = op_call("LeakyRelu", 17, {{"alpha", attr_float(0.5f)}});
  call.inputs = {Tensor::from<f16>({2}, {f16(-2.0f), f16(3.0f)})};
  std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].dtype(), DType::kF16);
  EXPECT_EQ(float(out[0].data<f16>()[0]), -1.0f);
  EXPECT_EQ(float(out[0].data<f16>()[1]), 3.0f);
}

TEST(Clip, BoundsAsInputsFromOpset11) {
  OpCall call = op_call("Clip", 13);
  call.inputs = {Tensor::from<float>({4}, {-3, -1, 1, 3}), Tensor::from<float>({}, {-2}),
                 Tensor::from<float>({}, {2})};
  expect_near(run_op(call)[0], {-2, -1, 1, 2});
}

TEST(Clip, OmittedBoundsKeepInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  OpCall call = op_call("Clip", 13);
  call.inputs = {Tensor::from<float>({3}, {-inf, 5, inf}), Tensor(), Tensor::from<float>({}, {4})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{-inf, 4, 4}));
}

TEST(Clip, MinAboveMaxGivesMax) {
  OpCall call = op_call("Clip", 13);
  call.inputs = {Tensor::from<float>({3}, {-5, 0, 5}), Tensor::from<float>({}, {2}),
                 Tensor::from<float>({}, {1})};
  expect_near(run_op(call)[0], {1, 1, 1});
}

TEST(Clip, IntegerTypes) {
  OpCall call = op_call("Clip", 13);
  call.inputs = {Tensor::from<int8_t>({4}, {-128, -1, 50, 127}), Tensor::from<int8_t>({}, {-10})};
  EXPECT_EQ(values_of<int8_t>(run_op(call)[0]), (std::vector<int8_t>{-10, -1, 50, 127}));
  call.inputs = {Tensor::from<int64_t>({2}, {int64_t(1) << 60, -5}), Tensor(),
                 Tensor::from<int64_t>({1}, {(int64_t(1) << 60) - 1})};
  EXPECT_EQ(values_of<int64_t>(run_op(call)[0]),
            (std::vector<int64_t>{(int64_t(1) << 60) - 1, -5}));
}

TEST(Clip, AttributesBeforeOpset11) {
  OpCall call = op_call("Clip", 6, {{"min", attr_float(-1)}});
  call.inputs = {Tensor::from<float>({3}, {-3, 0, 3})};
  expect_near(run_op(call)[0], {-1, 0, 3});
  call.attributes = {{"min", attr_float(-1)}, {"max", attr_float(0.5f)}};
  expect_near(run_op(call)[0], {-1, 0, 0.5f});
}

TEST(Clip, Errors) {
  OpCall wrong_type = op_call("Clip", 13);
  wrong_type.inputs = {Tensor::from<float>({1}, {0}), Tensor::from<double>({}, {1})};
  EXPECT_THROW(run_op(wrong_type), Error);
  OpCall not_scalar = op_call("Clip", 13);
  not_scalar.inputs = {Tensor::from<float>({2}, {0, 1}), Tensor::from<float>({2}, {0, 1})};
  EXPECT_THROW(run_op(not_scalar), Error);
  OpCall int_before_13 = op_call("Clip", 6);
  int_before_13.inputs = {Tensor::from<int32_t>({1}, {0})};
  EXPECT_THROW(run_op(int_before_13), Error);
}

TEST(PRelu, SlopeBroadcastsToInput) {
  OpCall call = op_call("PRelu", 16);
  call.inputs = {Tensor::from<float>({2, 3}, {-1, -2, -3, 1, 2, 3}),
                 Tensor::from<float>({3}, {0.1f, 0.2f, 0.3f})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {-0.1f, -0.4f, -0.9f, 1, 2, 3});
}

TEST(PRelu, IntegerTypes) {
  OpCall call = op_call("PRelu", 16);
  call.inputs = {Tensor::from<int32_t>({3}, {-4, 0, 4}), Tensor::from<int32_t>({1}, {3})};
  EXPECT_EQ(values_of<int32_t>(run_op(call)[0]), (std::vector<int32_t>{-12, 0, 4}));
}

TEST(PRelu, OneDimensionalSlopeIsPerChannelBeforeOpset7) {
  OpCall call = op_call("PRelu", 6);
  call.inputs = {Tensor::from<float>({1, 2, 2}, {-1, -1, -1, 1}),
                 Tensor::from<float>({2}, {0.5f, 0.25f})};
  expect_near(run_op(call)[0], {-0.5f, -0.5f, -0.25f, 1});
  call.opset = 7;  // numpy rules from opset 7: the slope runs along the last dim
  expect_near(run_op(call)[0], {-0.5f, -0.25f, -0.5f, 1});
}

TEST(PRelu, SlopeMustNotGrowTheInput) {
  OpCall call = op_call("PRelu", 16);
  call.inputs = {Tensor::from<float>({3}, {1, 2, 3}), Tensor::zeros(DType::kF32, {2, 3})};
  EXPECT_THROW(run_op(call), Error);
  call.inputs = {Tensor::from<float>({1, 3}, {1, 2, 3}), Tensor::zeros(DType::kF32, {2, 1})};
  EXPECT_THROW(run_op(call), Error);
  call.inputs = {Tensor::from<float>({3}, {1, 2, 3}), Tensor::from<double>({1}, {1})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
