#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/narrow_types.h"
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

OpCall cast(Tensor x, DType to, int64_t opset = 19) {
  OpCall call = op_call("Cast", opset, {{"to", attr_int(int64_t(to))}});
  call.inputs = {std::move(x)};
  return call;
}

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  const Tensor x = Tensor::from<float>({7}, {-1.7f, 1.7f, 2.5f, kNaN, kInf, -kInf, 1e10f});
  std::vector<Tensor> out = run_op(cast(x, DType::kI32));
  ASSERT_EQ(out[0].dtype(), DType::kI32);
  const int32_t kMax = std::numeric_limits<int32_t>::max();
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{-1, 1, 2, 0, kMax, kMin, kMax}));
  EXPECT_EQ(values_of<uint8_t>(
                run_op(cast(Tensor::from<double>({3}, {-3.5, 300, 254.9}), DType::kU8))[0]),
            (std::vector<uint8_t>{0, 255, 254}));
}

TEST(Cast, ToBoolIsNonZero) {
  std::vector<Tensor> out =
      run_op(cast(Tensor::from<float>({4}, {0.0f, -0.0f, 0.1f, kNaN}), DType::kBool));
  EXPECT_EQ(values_of<bool>(out[0]), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(values_of<bool>(run_op(cast(Tensor::from<int64_t>({2}, {0, -5}), DType::kBool))[0]),
            (std::vector<bool>{false, true}));
}

TEST(Cast, IntegerNarrowingWraps) {
  std::vector<Tensor> out = run_op(cast(Tensor::from<int64_t>({3}, {300, -129, 5}), DType::kI8));
  EXPECT_EQ(values_of<int8_t>(out[0]), (std::vector<int8_t>{44, 127, 5}));
  EXPECT_EQ(values_of<uint16_t>(run_op(cast(Tensor::from<int32_t>({1}, {-1}), DType::kU16))[0]),
            (std::vector<uint16_t>{65535}));
}

TEST(Cast, BoolAndIntegersToFloat) {
  expect_near(run_op(cast(Tensor::from<bool>({2}, {true, false}), DType::kF32))[0], {1, 0});
  std::vector<Tensor> big = run_op(
      cast(Tensor::from<uint64_t>({1}, {std::numeric_limits<uint64_t>::max()}), DType::kF64));
  EXPECT_DOUBLE_EQ(big[0].data<double>()[0], 18446744073709551616.0);
}

TEST(Cast, HalfPrecisionRoundsToNearestEven) {
  // bfloat16 keeps 7 mantissa bits: 1 + 2^-8 and 1 + 3 * 2^-8 are halfway cases.
  std::vector<Tensor> bf =
      run_op(cast(Tensor::from<float>({3}, {1.00390625f, 1.01171875f, -2.5f}), DType::kBF16));
  ASSERT_EQ(bf[0].dtype(), DType::kBF16);
  EXPECT_EQ(float(bf[0].data<bf16>()[0]), 1.0f);
  EXPECT_EQ(float(bf[0].data<bf16>()[1]), 1.015625f);
  EXPECT_EQ(float(bf[0].data<bf16>()[2]), -2.5f);
  std::vector<Tensor> half = run_op(cast(Tensor::from<double>({2}, {0.1, 70000}), DType::kF16));
  EXPECT_EQ(half[0].data<f16>()[0].bits, f16(0.1f).bits);
  EXPECT_TRUE(std::isinf(float(half[0].data<f16>()[1])));
  std::vector<Tensor> back = run_op(cast(half[0], DType::kF64));
  EXPECT_DOUBLE_EQ(back[0].data<double>()[0], double(float(f16(0.1f))));
}

TEST(Cast, SameTypeCopies) {
  expect_near(run_op(cast(Tensor::from<float>({2, 1}, {1.5f, -2}), DType::kF32))[0], {1.5f, -2});
}

TEST(Cast, TypeNameBeforeOpset6) {
  OpCall call = op_call("Cast", 5, {{"to", attr_string("INT32")}});
  call.inputs = {Tensor::from<float>({2}, {3.9f, -3.9f})};
  EXPECT_EQ(values_of<int32_t>(run_op(call)[0]), (std::vector<int32_t>{3, -3}));
  call.attributes = {{"to", attr_string("BOGUS")}};
  EXPECT_THROW(run_op(call), Error);
}

TEST(Cast, UnsupportedTargetsFail) {
  const Tensor x = Tensor::from<float>({1}, {1});
  for (int64_t to : {14, 99, -1}) {
    OpCall call = op_call("Cast", 21, {{"to", attr_int(to)}});
    call.inputs = {x};
    EXPECT_THROW(run_op(call), Error) << "to=" << to;
  }
  OpCall missing = op_call("Cast");
  missing.inputs = {x};
  EXPECT_THROW(run_op(missing), Error);
}

OpCall cast_saturate(Tensor x, DType to, int64_t saturate) {
  OpCall call = cast(std::move(x), to);
  call.attributes["saturate"] = attr_int(saturate);
  return call;
}

TEST(Cast, ToFloat8RoundsAndSaturates) {
  const Tensor x = Tensor::from<float>({4}, {1.0625f, 1000.0f, -kInf, kNaN});
  std::vector<Tensor> out = run_op(cast(x, kF8E4M3FN));
  ASSERT_EQ(out[0].dtype(), kF8E4M3FN);
  EXPECT_EQ(out[0].to_double()[0], 1.0);
  EXPECT_EQ(out[0].to_double()[1], 448.0);
  EXPECT_EQ(out[0].to_double()[2], -448.0);
  EXPECT_TRUE(std::isnan(out[0].to_double()[3]));
  std::vector<Tensor> open = run_op(cast_saturate(x, kF8E5M2, 0));
  EXPECT_EQ(open[0].to_double()[1], 1024.0);
  EXPECT_EQ(open[0].to_double()[2], -kInf);
  EXPECT_TRUE(std::isnan(run_op(cast_saturate(x, kF8E4M3FNUZ, 0))[0].to_double()[1]));
}

TEST(Cast, FromFloat8ToWideTypes) {
  const Tensor x = run_op(cast(Tensor::from<float>({3}, {0.5f, -3, 448}), kF8E4M3FN))[0];
  EXPECT_EQ(run_op(cast(x, DType::kF16))[0].to_double(), (std::vector<double>{0.5, -3, 448}));
  EXPECT_EQ(values_of<int32_t>(run_op(cast(x, DType::kI32))[0]),
            (std::vector<int32_t>{0, -3, 448}));
  // float8 to float8 goes through float: 448 overflows e4m3fnuz (largest 240).
  EXPECT_EQ(run_op(cast(x, kF8E4M3FNUZ))[0].to_double(), (std::vector<double>{0.5, -3, 240}));
}

TEST(Cast, Int4WrapsIntegersAndDependsOnOpsetForFloats) {
  const Tensor ints = Tensor::from<int32_t>({4}, {-9, -8, 7, 15});
  EXPECT_EQ(run_op(cast(ints, kI4))[0].to_int64(), (std::vector<int64_t>{7, -8, 7, -1}));
  EXPECT_EQ(run_op(cast(ints, kU4))[0].to_double(), (std::vector<double>{7, 8, 7, 15}));
  const Tensor floats = Tensor::from<float>({4}, {-9.5f, -8, 7.9f, 15});
  EXPECT_EQ(run_op(cast(floats, kI4, 21))[0].to_double(), (std::vector<double>{-8, -8, 7, 7}));
  EXPECT_EQ(run_op(cast(floats, kI4, 25))[0].to_double(), (std::vector<double>{7, -8, 7, -1}));
  EXPECT_EQ(run_op(cast(floats, kU4, 21))[0].to_double(), (std::vector<double>{0, 0, 7, 15}));
  const Tensor i4 = run_op(cast(ints, kI4))[0];
  EXPECT_EQ(values_of<int8_t>(run_op(cast(i4, DType::kI8))[0]),
            (std::vector<int8_t>{7, -8, 7, -1}));
  expect_near(run_op(cast(i4, DType::kF32))[0], {7, -8, 7, -1});
}

Tensor text(const std::vector<std::string>& values) {
  Tensor t = Tensor::zeros(DType::kString, {int64_t(values.size())});
  std::copy(values.begin(), values.end(), t.data<std::string>());
  return t;
}

TEST(Cast, ToAndFromStrings) {
  const Tensor s =
      run_op(cast(Tensor::from<float>({3}, {0.9767611f, 1e-7f, -2}), DType::kString))[0];
  ASSERT_EQ(s.dtype(), DType::kString);
  EXPECT_EQ(s.data<std::string>()[0], "0.9767611");
  EXPECT_EQ(s.data<std::string>()[1], "1e-07");
  EXPECT_EQ(s.data<std::string>()[2], "-2");
  EXPECT_EQ(
      run_op(cast(Tensor::from<int64_t>({1}, {-42}), DType::kString))[0].data<std::string>()[0],
      "-42");
  const Tensor f = run_op(cast(text({"0.5", "1E3", "+INF", "-inf", "NaN"}), DType::kF32))[0];
  const std::vector<double> v = f.to_double();
  EXPECT_EQ(v[0], 0.5);
  EXPECT_EQ(v[1], 1000);
  EXPECT_EQ(v[2], kInf);
  EXPECT_EQ(v[3], -kInf);
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_EQ(run_op(cast(text({"100.5"}), DType::kI32))[0].to_int64(), std::vector<int64_t>{100});
  EXPECT_THROW(run_op(cast(text({"Hello"}), DType::kF32)), Error);
  EXPECT_THROW(run_op(cast(text({"1"}), kF8E4M3FN)), Error);
}

TEST(Cast, Float4RoundsAndAlwaysSaturates) {
  const Tensor x = Tensor::from<float>({4}, {0.48f, -3.5f, 9, kNaN});
  const Tensor y = run_op(cast_saturate(x, kF4E2M1, 0))[0];
  ASSERT_EQ(y.dtype(), kF4E2M1);
  const std::vector<double> v = y.to_double();
  EXPECT_EQ(v[0], 0.5);
  EXPECT_EQ(v[1], -4);  // halfway between -3 and -4: the even mantissa
  EXPECT_EQ(v[2], 6);   // no infinity to overflow to
  EXPECT_EQ(v[3], 0);
  EXPECT_TRUE(std::signbit(v[3]));  // NaN becomes -0
}

TEST(Cast, Int2WrapsFromOpset23) {
  const Tensor x = Tensor::from<float>({5}, {-3, -2, 1.5f, 2, 3});
  EXPECT_EQ(run_op(cast(x, kI2, 25))[0].to_int64(), (std::vector<int64_t>{1, -2, 1, -2, -1}));
  EXPECT_EQ(run_op(cast(x, kU2, 25))[0].to_int64(), (std::vector<int64_t>{1, 2, 1, 2, 3}));
  EXPECT_EQ(run_op(cast(x, kI2, 21))[0].to_int64(), (std::vector<int64_t>{-2, -2, 1, 1, 1}));
}

// CastLike takes the dtype of its second input (whose values are not read), with Cast's rules.
TEST(CastLike, ConvertsToTheDtypeOfItsSecondInput) {
  OpCall call = op_call("CastLike", 15);
  call.inputs = {Tensor::from<float>({2, 2}, {-1.7f, 2.5f, 300.0f, 0.0f}),
                 Tensor::from<uint8_t>({0}, {})};
  const std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].dtype(), DType::kU8);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out[0].to_int64(), (std::vector<int64_t>{0, 2, 255, 0}));  // truncates, saturates
  call.inputs = {Tensor::from<int64_t>({2}, {3, -4}), Tensor::from<double>({1}, {9.5})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{3, -4}));
  call.inputs = {Tensor::from<float>({1}, {3}), Tensor::zeros(kF8E8M0, {1})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{4}));  // e8m0 rounds up
}

// float8e8m0 (opset 25): powers of two only, 2^(bits - 127).
OpCall cast_e8m0(Tensor x, const char* round_mode, int64_t saturate = 1) {
  OpCall call = op_call("Cast", 25,
                        {{"to", attr_int(int64_t(kF8E8M0))},
                         {"round_mode", attr_string(round_mode)},
                         {"saturate", attr_int(saturate)}});
  call.inputs = {std::move(x)};
  return call;
}

TEST(Cast, ToFloat8E8M0RoundsThePowerOfTwo) {
  const Tensor x = Tensor::from<float>({6}, {0, 0.124f, 1.1f, 1.5f, 3.5f, -8});
  const Tensor up = run_op(cast_e8m0(x, "up"))[0];
  ASSERT_EQ(up.dtype(), kF8E8M0);
  EXPECT_EQ(values_of<uint8_t>(up), (std::vector<uint8_t>{0x00, 0x7c, 0x80, 0x80, 0x81, 0x82}));
  EXPECT_EQ(values_of<uint8_t>(run_op(cast_e8m0(x, "down"))[0]),
            (std::vector<uint8_t>{0x00, 0x7b, 0x7f, 0x7f, 0x80, 0x82}));
  // Nearest: 1.5 is half-way between 2^0 (biased 127, odd) and 2^1: to the even 128.
  EXPECT_EQ(values_of<uint8_t>(run_op(cast_e8m0(x, "nearest"))[0]),
            (std::vector<uint8_t>{0x00, 0x7c, 0x7f, 0x80, 0x81, 0x82}));
  const Tensor special = Tensor::from<float>({3}, {kNaN, kInf, 3e38f});
  EXPECT_EQ(values_of<uint8_t>(run_op(cast_e8m0(special, "up"))[0]),
            (std::vector<uint8_t>{0xff, 0xfe, 0xfe}));
  EXPECT_EQ(values_of<uint8_t>(run_op(cast_e8m0(special, "up", 0))[0]),
            (std::vector<uint8_t>{0xff, 0xff, 0xff}));
}

TEST(Cast, FromFloat8E8M0AndBadRoundMode) {
  const Tensor bits = run_op(cast_e8m0(Tensor::from<float>({3}, {0.25f, 1, 1024}), "up"))[0];
  EXPECT_EQ(run_op(cast(bits, DType::kF32, 25))[0].to_double(),
            (std::vector<double>{0.25, 1, 1024}));
  EXPECT_EQ(run_op(cast(bits, DType::kF16, 25))[0].to_double(),
            (std::vector<double>{0.25, 1, 1024}));
  expect_error([&] { run_op(cast_e8m0(bits, "sideways")); },
               {"attribute 'round_mode' must be up, down or nearest"});
}

}  // namespace
}  // namespace strata::test
