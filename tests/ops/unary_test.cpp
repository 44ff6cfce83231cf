#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall unary(const char* op_type, Tensor x) {
  OpCall call = op_call(op_type);
  call.inputs = {std::move(x)};
  return call;
}

// Expected values from numpy (math.erf for Erf) on float32 inputs.
struct FloatCase {
  const char* op_type;
  std::vector<float> input;
  std::vector<float> expected;
};

const FloatCase kFloatCases[] = {
    {"Abs", {-1.5f, -0.5f, 0.5f, 2}, {1.5f, 0.5f, 0.5f, 2}},
    {"Acos", {-0.9f, -0.5f, 0.5f, 0.9f}, {2.690566f, 2.094395f, 1.047198f, 0.4510268f}},
    {"Asin", {-0.9f, -0.5f, 0.5f, 0.9f}, {-1.11977f, -0.5235988f, 0.5235988f, 1.11977f}},
    {"Atanh", {-0.9f, -0.5f, 0.5f, 0.9f}, {-1.472219f, -0.5493061f, 0.5493061f, 1.472219f}},
    {"Acosh", {1, 1.5f, 2, 3}, {0, 0.9624237f, 1.316958f, 1.762747f}},
    {"Asinh", {-1.5f, -0.5f, 0.5f, 2}, {-1.194763f, -0.4812118f, 0.4812118f, 1.443635f}},
    {"Atan", {-1.5f, -0.5f, 0.5f, 2}, {-0.9827937f, -0.4636476f, 0.4636476f, 1.107149f}},
    {"Cosh", {-1.5f, -0.5f, 0.5f, 2}, {2.35241f, 1.127626f, 1.127626f, 3.762196f}},
    {"Sinh", {-1.5f, -0.5f, 0.5f, 2}, {-2.129279f, -0.5210953f, 0.5210953f, 3.62686f}},
    {"Mish", {-1.5f, -0.5f, 0.5f, 2}, {-0.2980997f, -0.2207438f, 0.3752452f, 1.943959f}},
    {"Ceil", {-1.5f, -0.5f, 0.5f, 2}, {-1, 0, 1, 2}},
    {"Cos", {-1.5f, -0.5f, 0.5f, 2}, {0.0707372f, 0.8775826f, 0.8775826f, -0.4161468f}},
    {"Erf", {-1.5f, -0.5f, 0.5f, 2}, {-0.9661051f, -0.5204999f, 0.5204999f, 0.9953223f}},
    {"Exp", {-1.5f, -0.5f, 0.5f, 2}, {0.2231302f, 0.6065307f, 1.648721f, 7.389056f}},
    {"Floor", {-1.5f, -0.5f, 0.5f, 2}, {-2, -1, 0, 2}},
    {"Log", {1.5f, 0.5f, 1, 2}, {0.4054651f, -0.6931472f, 0, 0.6931472f}},
    {"Neg", {-1.5f, -0.5f, 0.5f, 2}, {1.5f, 0.5f, -0.5f, -2}},
    {"Reciprocal", {-1.5f, -0.5f, 0.5f, 2}, {-0.6666667f, -2, 2, 0.5f}},
    {"Relu", {-1.5f, -0.5f, 0.5f, 2}, {0, 0, 0.5f, 2}},
    {"Sigmoid", {-1.5f, -0.5f, 0.5f, 2}, {0.1824255f, 0.3775407f, 0.6224594f, 0.880797f}},
    {"Sign", {-1.5f, -0.5f, 0, 2}, {-1, -1, 0, 1}},
    {"Sin", {-1.5f, -0.5f, 0.5f, 2}, {-0.997495f, -0.4794255f, 0.4794255f, 0.9092974f}},
    {"Softplus", {-1.5f, -0.5f, 0.5f, 2}, {0.2014133f, 0.474077f, 0.974077f, 2.126928f}},
    {"Softsign", {-1.5f, -0.5f, 0.5f, 2}, {-0.6f, -0.3333333f, 0.3333333f, 0.6666667f}},
    {"Sqrt", {1.5f, 0.5f, 0, 4}, {1.224745f, 0.7071068f, 0, 2}},
    {"Tan", {-1.5f, -0.5f, 0.5f, 2}, {-14.10142f, -0.5463025f, 0.5463025f, -2.18504f}},
    {"Tanh", {-1.5f, -0.5f, 0.5f, 2}, {-0.9051482f, -0.4621172f, 0.4621172f, 0.9640276f}},
};

TEST(Unary, FloatOpsMatchNumpy) {
  for (const FloatCase& c : kFloatCases) {
    SCOPED_TRACE(c.op_type);
    std::vector<Tensor> out =
        run_op(unary(c.op_type, Tensor::from<float>({2, 2}, std::span(c.input))));
    ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
    for (size_t i = 0; i < c.expected.size(); ++i)
      EXPECT_NEAR(out[0].data<float>()[i], c.expected[i],
                  1e-5f * std::max(1.0f, std::abs(c.expected[i])));
  }
}

TEST(Unary, RoundsHalfToEven) {
  std::vector<Tensor> out = run_op(
      unary("Round", Tensor::from<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f, -2.4f})));
  expect_near(out[0], {0, 2, 2, 0, -2, 3, -2});
}

TEST(Unary, IsNaNOutputsBool) {
  std::vector<Tensor> out = run_op(unary("IsNaN", Tensor::from<float>({3}, {1, kNaN, -INFINITY})));
  ASSERT_EQ(out[0].dtype(), DType::kBool);
  EXPECT_EQ(values_of<bool>(out[0]), (std::vector<bool>{false, true, false}));
}

TEST(Unary, IsInfDetectsTheChosenInfinities) {
  const Tensor x = Tensor::from<float>({4}, {1, INFINITY, -INFINITY, kNaN});
  for (const auto& [negative, positive, expected] :
       std::vector<std::tuple<int64_t, int64_t, std::vector<int64_t>>>{
           {1, 1, {0, 1, 1, 0}}, {0, 1, {0, 1, 0, 0}}, {1, 0, {0, 0, 1, 0}}}) {
    OpCall call =
        op_call("IsInf", 20,
                {{"detect_negative", attr_int(negative)}, {"detect_positive", attr_int(positive)}});
    call.inputs = {x};
    const Tensor y = run_op(call)[0];
    EXPECT_EQ(y.dtype(), DType::kBool);
    EXPECT_EQ(y.to_int64(), expected);
  }
}

TEST(Unary, NotNegatesBool) {
  std::vector<Tensor> out = run_op(unary("Not", Tensor::from<bool>({2}, {true, false})));
  EXPECT_EQ(values_of<bool>(out[0]), (std::vector<bool>{false, true}));
}

TEST(Unary, IntegerAbsNegSignReluWrapAndStayExact) {
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  const Tensor x = Tensor::from<int32_t>({4}, {-7, 0, 5, kMin});
  EXPECT_EQ(values_of<int32_t>(run_op(unary("Abs", x))[0]), (std::vector<int32_t>{7, 0, 5, kMin}));
  EXPECT_EQ(values_of<int32_t>(run_op(unary("Neg", x))[0]), (std::vector<int32_t>{7, 0, -5, kMin}));
  EXPECT_EQ(values_of<int32_t>(run_op(unary("Sign", x))[0]), (std::vector<int32_t>{-1, 0, 1, -1}));
  EXPECT_EQ(values_of<int32_t>(run_op(unary("Relu", x))[0]), (std::vector<int32_t>{0, 0, 5, 0}));
  const Tensor u = Tensor::from<uint8_t>({3}, {0, 3, 255});
  EXPECT_EQ(values_of<uint8_t>(run_op(unary("Abs", u))[0]), (std::vector<uint8_t>{0, 3, 255}));
  EXPECT_EQ(values_of<uint8_t>(run_op(unary("Sign", u))[0]), (std::vector<uint8_t>{0, 1, 1}));
}

TEST(Unary, ErfOfIntegersTruncates) {
  std::vector<Tensor> out = run_op(unary("Erf", Tensor::from<int64_t>({3}, {-3, 0, 3})));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 0}));
}

TEST(Unary, SignKeepsNaNAndSoftplusDoesNotOverflow) {
  std::vector<Tensor> sign = run_op(unary("Sign", Tensor::from<float>({1}, {kNaN})));
  EXPECT_TRUE(std::isnan(sign[0].data<float>()[0]));
  std::vector<Tensor> softplus = run_op(unary("Softplus", Tensor::from<float>({2}, {100, -100})));
  expect_near(softplus[0], {100, 0});
}

TEST(Unary, Float16AndDoubleComputeInTheirPrecision) {
  std::vector<Tensor> half = run_op(unary("Exp", Tensor::from<f16>({2}, {f16(0.0f), f16(1.0f)})));
  ASSERT_EQ(half[0].dtype(), DType::kF16);
  EXPECT_NEAR(float(half[0].data<f16>()[1]), 2.71828f, 2e-3f);
  std::vector<Tensor> dbl = run_op(unary("Sqrt", Tensor::from<double>({1}, {2.0})));
  EXPECT_DOUBLE_EQ(dbl[0].data<double>()[0], std::sqrt(2.0));
  std::vector<Tensor> bf = run_op(unary("Neg", Tensor::from<bf16>({1}, {bf16(1.5f)})));
  EXPECT_EQ(float(bf[0].data<bf16>()[0]), -1.5f);
}

TEST(Unary, EmptyTensorKeepsShape) {
  std::vector<Tensor> out = run_op(unary("Sigmoid", Tensor::zeros(DType::kF32, {0, 3})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0, 3}));
}

TEST(Unary, RejectsUnsupportedDtypes) {
  EXPECT_THROW(run_op(unary("Exp", Tensor::from<int32_t>({1}, {1}))), Error);
  EXPECT_THROW(run_op(unary("Not", Tensor::from<float>({1}, {1}))), Error);
  EXPECT_THROW(run_op(unary("Neg", Tensor::from<uint8_t>({1}, {1}))), Error);
  EXPECT_THROW(run_op(unary("Abs", Tensor::from<bool>({1}, {true}))), Error);
  EXPECT_THROW(run_op(unary("IsNaN", Tensor::from<int64_t>({1}, {1}))), Error);
}

}  // namespace
}  // namespace strata::test
