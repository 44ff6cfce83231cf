#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall binary(const char* op_type, Tensor a, Tensor b, int64_t opset = 17) {
  OpCall call = op_call(op_type, opset);
  call.inputs = {std::move(a), std::move(b)};
  return call;
}

TEST(Binary, FloatArithmeticBroadcastsTheSecondInput) {
  const Tensor a = Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Tensor::from<float>({3}, {2, 4, 8});
  expect_near(run_op(binary("Add", a, b))[0], {3, 6, 11, 6, 9, 14});
  expect_near(run_op(binary("Sub", a, b))[0], {-1, -2, -5, 2, 1, -2});
  expect_near(run_op(binary("Mul", a, b))[0], {2, 8, 24, 8, 20, 48});
  expect_near(run_op(binary("Div", a, b))[0], {0.5f, 0.5f, 0.375f, 2, 1.25f, 0.75f});
  expect_near(run_op(binary("Pow", a, b))[0], {1, 16, 6561, 16, 625, 1679616}, 0.5f);
}

TEST(Binary, BroadcastsBothInputs) {
  std::vector<Tensor> out = run_op(
      binary("Sub", Tensor::from<float>({2, 1}, {10, 20}), Tensor::from<float>({1, 3}, {1, 2, 3})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {9, 8, 7, 19, 18, 17});
  std::vector<Tensor> scalar =
      run_op(binary("Mul", Tensor::from<float>({}, {3}), Tensor::from<float>({2}, {1, 2})));
  expect_near(scalar[0], {3, 6});
}

TEST(Binary, EmptyAndIncompatibleShapes) {
  std::vector<Tensor> out = run_op(
      binary("Add", Tensor::zeros(DType::kF32, {0, 3}), Tensor::from<float>({3}, {1, 2, 3})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_THROW(
      run_op(binary("Add", Tensor::zeros(DType::kF32, {2, 3}), Tensor::zeros(DType::kF32, {2}))),
      Error);
  EXPECT_THROW(
      run_op(binary("Add", Tensor::zeros(DType::kF32, {2}), Tensor::zeros(DType::kI32, {2}))),
      Error);
  EXPECT_THROW(
      run_op(binary("Add", Tensor::zeros(DType::kBool, {2}), Tensor::zeros(DType::kBool, {2}))),
      Error);
}

TEST(Binary, IntegerArithmeticWrapsAndTruncates) {
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(values_of<int32_t>(run_op(binary("Add", Tensor::from<int32_t>({1}, {kMax}),
                                             Tensor::from<int32_t>({1}, {1})))[0]),
            (std::vector<int32_t>{kMin}));
  EXPECT_EQ(values_of<int8_t>(run_op(binary("Mul", Tensor::from<int8_t>({1}, {100}),
                                            Tensor::from<int8_t>({1}, {3})))[0]),
            (std::vector<int8_t>{44}));
  EXPECT_EQ(values_of<uint8_t>(run_op(binary("Sub", Tensor::from<uint8_t>({1}, {1}),
                                             Tensor::from<uint8_t>({1}, {2})))[0]),
            (std::vector<uint8_t>{255}));
  EXPECT_EQ(values_of<int32_t>(run_op(binary("Div", Tensor::from<int32_t>({3}, {-7, 7, kMin}),
                                             Tensor::from<int32_t>({3}, {2, -2, -1})))[0]),
            (std::vector<int32_t>{-3, -3, kMin}));
}

TEST(Binary, IntegerDivisionByZeroFails) {
  EXPECT_THROW(
      run_op(binary("Div", Tensor::from<int64_t>({2}, {1, 2}), Tensor::from<int64_t>({2}, {1, 0}))),
      Error);
  EXPECT_THROW(
      run_op(binary("Mod", Tensor::from<uint8_t>({1}, {1}), Tensor::from<uint8_t>({1}, {0}))),
      Error);
  // Float division by zero is IEEE: infinity.
  std::vector<Tensor> out =
      run_op(binary("Div", Tensor::from<float>({1}, {1}), Tensor::from<float>({1}, {0})));
  EXPECT_TRUE(std::isinf(out[0].data<float>()[0]));
}

TEST(Mod, IntegerFollowsDivisorSignUnlessFmod) {
  const Tensor a = Tensor::from<int32_t>({5}, {-7, -3, 3, 7, std::numeric_limits<int32_t>::min()});
  const Tensor b = Tensor::from<int32_t>({5}, {2, -2, -2, 2, -1});
  EXPECT_EQ(values_of<int32_t>(run_op(binary("Mod", a, b))[0]),
            (std::vector<int32_t>{1, -1, -1, 1, 0}));
  OpCall fmod = binary("Mod", a, b);
  fmod.attributes = {{"fmod", attr_int(1)}};
  EXPECT_EQ(values_of<int32_t>(run_op(fmod)[0]), (std::vector<int32_t>{-1, -1, 1, 1, 0}));
}

TEST(Mod, FloatFmodAndFloored) {
  const Tensor a = Tensor::from<float>({4}, {-4.5f, 4.5f, -4.5f, 4.5f});
  const Tensor b = Tensor::from<float>({4}, {2, 2, -2, -2});
  OpCall fmod = binary("Mod", a, b);
  fmod.attributes = {{"fmod", attr_int(1)}};
  expect_near(run_op(fmod)[0], {-0.5f, 0.5f, -0.5f, 0.5f});
  expect_near(run_op(binary("Mod", a, b))[0], {1.5f, 0.5f, -0.5f, -1.5f});
}

TEST(Pow, MixedBaseAndExponentTypes) {
  std::vector<Tensor> float_int =
      run_op(binary("Pow", Tensor::from<float>({2}, {2, 3}), Tensor::from<int64_t>({2}, {3, -1})));
  expect_near(float_int[0], {8, 0.3333333f});
  std::vector<Tensor> int_float = run_op(
      binary("Pow", Tensor::from<int32_t>({3}, {1, 2, 3}), Tensor::from<float>({3}, {4, 5, 0.5f})));
  EXPECT_EQ(values_of<int32_t>(int_float[0]), (std::vector<int32_t>{1, 32, 1}));
  // Exact where a double would round: 3^39 needs 62 bits.
  std::vector<Tensor> int_int = run_op(binary("Pow", Tensor::from<int64_t>({4}, {3, 2, -1, 5}),
                                              Tensor::from<int64_t>({4}, {39, -1, -3, 0})));
  EXPECT_EQ(values_of<int64_t>(int_int[0]),
            (std::vector<int64_t>{4052555153018976267LL, 0, -1, 1}));
  EXPECT_THROW(
      run_op(binary("Pow", Tensor::from<float>({1}, {1}), Tensor::from<bool>({1}, {true}))), Error);
}

TEST(Logical, TruthTables) {
  const Tensor a = Tensor::from<bool>({4}, {false, false, true, true});
  const Tensor b = Tensor::from<bool>({4}, {false, true, false, true});
  EXPECT_EQ(values_of<bool>(run_op(binary("And", a, b))[0]), (std::vector<bool>{0, 0, 0, 1}));
  EXPECT_EQ(values_of<bool>(run_op(binary("Or", a, b))[0]), (std::vector<bool>{0, 1, 1, 1}));
  EXPECT_EQ(values_of<bool>(run_op(binary("Xor", a, b))[0]), (std::vector<bool>{0, 1, 1, 0}));
  EXPECT_THROW(
      run_op(binary("And", Tensor::from<int32_t>({1}, {1}), Tensor::from<int32_t>({1}, {1}))),
      Error);
}

TEST(Comparison, OutputsBoolAndHandlesNaN) {
  const Tensor a = Tensor::from<float>({4}, {1, 2, 3, kNaN});
  const Tensor b = Tensor::from<float>({1}, {2});
  EXPECT_EQ(values_of<bool>(run_op(binary("Equal", a, b))[0]), (std::vector<bool>{0, 1, 0, 0}));
  EXPECT_EQ(values_of<bool>(run_op(binary("Greater", a, b))[0]), (std::vector<bool>{0, 0, 1, 0}));
  EXPECT_EQ(values_of<bool>(run_op(binary("GreaterOrEqual", a, b))[0]),
            (std::vector<bool>{0, 1, 1, 0}));
  EXPECT_EQ(values_of<bool>(run_op(binary("Less", a, b))[0]), (std::vector<bool>{1, 0, 0, 0}));
  EXPECT_EQ(values_of<bool>(run_op(binary("LessOrEqual", a, b))[0]),
            (std::vector<bool>{1, 1, 0, 0}));
  const Tensor t = Tensor::from<bool>({2}, {true, false});
  EXPECT_EQ(values_of<bool>(run_op(binary("Equal", t, Tensor::from<bool>({1}, {true})))[0]),
            (std::vector<bool>{1, 0}));
  EXPECT_THROW(run_op(binary("Greater", t, t)), Error);
}

TEST(Binary, LegacyBroadcastAlignsAtAxis) {
  const Tensor a = Tensor::from<float>({2, 3, 2}, {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  OpCall at_axis = binary("Add", a, Tensor::from<float>({3}, {10, 20, 30}), 6);
  at_axis.attributes = {{"broadcast", attr_int(1)}, {"axis", attr_int(1)}};
  std::vector<Tensor> out = run_op(at_axis);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3, 2}));
  expect_near(out[0], {10, 10, 20, 20, 30, 30, 11, 11, 21, 21, 31, 31});

  OpCall suffix = binary("Mul", a, Tensor::from<float>({3, 2}, {1, 2, 3, 4, 5, 6}), 6);
  suffix.attributes = {{"broadcast", attr_int(1)}};
  expect_near(run_op(suffix)[0], {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6});

  OpCall one_element = binary("Sub", a, Tensor::from<float>({1, 1}, {1}), 6);
  one_element.attributes = {{"broadcast", attr_int(1)}, {"axis", attr_int(0)}};
  expect_near(run_op(one_element)[0], {-1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0});
}

TEST(Binary, LegacyBroadcastErrors) {
  const Tensor a = Tensor::zeros(DType::kF32, {2, 3, 2});
  OpCall bad_axis = binary("Add", a, Tensor::zeros(DType::kF32, {3}), 6);
  bad_axis.attributes = {{"broadcast", attr_int(1)}, {"axis", attr_int(3)}};
  EXPECT_THROW(run_op(bad_axis), Error);
  OpCall mismatch = binary("Add", a, Tensor::zeros(DType::kF32, {3}), 6);
  mismatch.attributes = {{"broadcast", attr_int(1)}, {"axis", attr_int(0)}};
  EXPECT_THROW(run_op(mismatch), Error);
}

// BitwiseAnd/Or/Xor on integers with broadcasting; BitShift on unsigned integers, 0 past the
// width; BitwiseNot (a unary op).
TEST(Bitwise, AndOrXorShiftAndNot) {
  auto call = [](const char* op, Tensor a, Tensor b,
                 std::map<std::string, ir::Attribute> attrs = {}) {
    OpCall c = op_call(op, 18, std::move(attrs));
    c.inputs = {std::move(a), std::move(b)};
    return run_op(c)[0].to_int64();
  };
  const Tensor a = Tensor::from<int32_t>({3}, {12, -1, 5});
  const Tensor b = Tensor::from<int32_t>({1}, {10});
  EXPECT_EQ(call("BitwiseAnd", a, b), (std::vector<int64_t>{8, 10, 0}));
  EXPECT_EQ(call("BitwiseOr", a, b), (std::vector<int64_t>{14, -1, 15}));
  EXPECT_EQ(call("BitwiseXor", a, b), (std::vector<int64_t>{6, -11, 15}));
  const Tensor u = Tensor::from<uint8_t>({3}, {1, 16, 255});
  const Tensor by = Tensor::from<uint8_t>({3}, {3, 2, 8});
  EXPECT_EQ(call("BitShift", u, by, {{"direction", attr_string("LEFT")}}),
            (std::vector<int64_t>{8, 64, 0}));
  EXPECT_EQ(call("BitShift", u, by, {{"direction", attr_string("RIGHT")}}),
            (std::vector<int64_t>{0, 4, 0}));
  EXPECT_THROW(call("BitShift", u, by, {{"direction", attr_string("UP")}}), Error);
  EXPECT_THROW(call("BitShift", a, b, {{"direction", attr_string("LEFT")}}), Error);  // signed
  EXPECT_THROW(call("BitwiseAnd", Tensor::from<float>({1}, {1}), Tensor::from<float>({1}, {1})),
               Error);
  OpCall n = op_call("BitwiseNot", 18);
  n.inputs = {Tensor::from<int16_t>({2}, {0, 5})};
  EXPECT_EQ(run_op(n)[0].to_int64(), (std::vector<int64_t>{-1, -6}));
}

}  // namespace
}  // namespace strata::test
