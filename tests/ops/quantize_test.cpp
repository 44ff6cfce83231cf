// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear (src/ops/quantize.cpp): rounding half
// to even, saturation, per-axis and blocked parameters, and bad scales.
#include <cmath>

#include "core/narrow_types.h"
#include "ops/op_test_util.h"

namespace strata::test {
namespace {

std::vector<int64_t> quantize(Tensor x, Tensor scale, Tensor zp,
                              std::map<std::string, ir::Attribute> attrs = {}) {
  OpCall call = op_call("QuantizeLinear", 21, std::move(attrs));
  call.inputs = {std::move(x), std::move(scale), std::move(zp)};
  return run_op(call)[0].to_int64();
}

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  const Tensor x = Tensor::from<float>({6}, {0.5f, 1.5f, 2.5f, -0.5f, 300, -300});
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<uint8_t>({}, {0})),
            (std::vector<int64_t>{0, 2, 2, 0, 255, 0}));
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<int8_t>({}, {1})),
            (std::vector<int64_t>{1, 3, 3, 1, 127, -128}));
}

TEST(QuantizeLinear, PerAxisAndBlockedParameters) {
  const Tensor x = Tensor::from<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  // Per axis 0: row scales 1 and 2.
  EXPECT_EQ(quantize(x, Tensor::from<float>({2}, {1, 2}), Tensor::from<int16_t>({2}, {0, 10}),
                     {{"axis", attr_int(0)}}),
            (std::vector<int64_t>{1, 2, 3, 4, 12, 13, 14, 14}));
  // Blocks of 2 along axis 1: scales [[1, 2], [4, 8]].
  EXPECT_EQ(quantize(x, Tensor::from<float>({2, 2}, {1, 2, 4, 8}),
                     Tensor::from<uint8_t>({2, 2}, {0, 0, 0, 0}),
                     {{"axis", attr_int(1)}, {"block_size", attr_int(2)}}),
            (std::vector<int64_t>{1, 2, 2, 2, 1, 2, 1, 1}));
}

TEST(QuantizeLinear, BadScalesAndShapesFailNamingTheInput) {
  const Tensor x = Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THROW(quantize(x, Tensor::from<float>({}, {0}), Tensor::from<uint8_t>({}, {0})), Error);
  EXPECT_THROW(quantize(x, Tensor::from<float>({}, {-1}), Tensor::from<uint8_t>({}, {0})), Error);
  EXPECT_THROW(quantize(x, Tensor::from<float>({2}, {1, 1}), Tensor::from<uint8_t>({2}, {0, 0})),
               Error);  // axis 1 has 3 elements
  EXPECT_THROW(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<int32_t>({}, {0})), Error);
  // Found by fuzz_graph (tests/data/fuzz-regressions/fuzz_graph/quantize-scalar-per-axis.bin):
  // per-axis parameters for a scalar x read the scalar's missing axis.
  EXPECT_THROW(quantize(Tensor::from<float>({}, {1}), Tensor::from<float>({2}, {1, 1}),
                        Tensor::from<uint8_t>({2}, {0, 0})),
               Error);
}

TEST(DequantizeLinear, SubtractsTheZeroPointAndScales) {
  OpCall call = op_call("DequantizeLinear", 21, {{"axis", attr_int(0)}});
  call.inputs = {Tensor::from<int8_t>({2, 2}, {-128, 0, 10, 127}),
                 Tensor::from<float>({2}, {0.5f, 2}), Tensor::from<int8_t>({2}, {0, 10})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{-64, 0, 0, 234}));
}

TEST(QuantizeLinear, ToInt4ClampsToFourBits) {
  const Tensor x = Tensor::from<float>({5}, {-20, -2.5f, 0.5f, 3, 40});
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {0.5f}), Tensor::from<int4>({}, {1})),
            (std::vector<int64_t>{-8, -4, 2, 7, 7}));
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<uint4>({}, {2})),
            (std::vector<int64_t>{0, 0, 2, 5, 15}));
}

TEST(QuantizeLinear, ToInt2ClampsToTwoBits) {
  const Tensor x = Tensor::from<float>({4}, {-5, -1, 0.4f, 9});
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<int2>({}, {0})),
            (std::vector<int64_t>{-2, -1, 0, 1}));
  EXPECT_EQ(quantize(x, Tensor::from<float>({}, {1}), Tensor::from<uint2>({}, {1})),
            (std::vector<int64_t>{0, 0, 1, 3}));
}

TEST(QuantizeLinear, ToFloat8RoundsAndSaturates) {
  const Tensor x = Tensor::from<float>({3}, {2.125f, 1000, -1e6f});
  OpCall call = op_call("QuantizeLinear", 21);
  call.inputs = {x, Tensor::from<float>({}, {2}), Tensor::from<f8e4m3fn>({}, {0})};
  std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].dtype(), kF8E4M3FN);
  EXPECT_EQ(out[0].to_double(), (std::vector<double>{1, 448, -448}));  // 1.0625 ties to 1
  call.attributes = {{"saturate", attr_int(0)}};
  call.inputs[2] = Tensor::from<f8e5m2>({}, {0});
  out = run_op(call);
  EXPECT_EQ(out[0].to_double()[1], 512);
  EXPECT_TRUE(std::isinf(out[0].to_double()[2]));
}

TEST(DequantizeLinear, Int4AndFloat8Inputs) {
  OpCall call = op_call("DequantizeLinear", 21);
  call.inputs = {Tensor::from<int4>({3}, {-8, 0, 7}), Tensor::from<float>({}, {0.5f}),
                 Tensor::from<int4>({}, {-1})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{-3.5, 0.5, 4}));
  call.inputs = {Tensor::from<f8e5m2>({2}, {1.5f, -3}), Tensor::from<float>({}, {2})};
  EXPECT_EQ(run_op(call)[0].to_double(), (std::vector<double>{3, -6}));
}

TEST(DynamicQuantizeLinear, RangeIncludesZero) {
  OpCall call = op_call("DynamicQuantizeLinear", 11);
  call.inputs = {Tensor::from<float>({4}, {1, 2, 3, 5.1f})};  // min 0 (zero is always in range)
  call.num_outputs = 3;
  const std::vector<Tensor> out = run_op(call);
  EXPECT_FLOAT_EQ(float(out[1].to_double()[0]), 5.1f / 255);
  EXPECT_EQ(out[2].to_int64(), std::vector<int64_t>{0});
  EXPECT_EQ(out[0].to_int64(), (std::vector<int64_t>{50, 100, 150, 255}));
}

// MatMulInteger: int32 products of zero-point-centred uint8/int8 operands (zero point per row
// of A here); QLinearMatMul scales, rounds half to even and saturates.
TEST(QuantizedMatMul, IntegerProductsAndRequantization) {
  OpCall integer = op_call("MatMulInteger", 10);
  integer.inputs = {Tensor::from<uint8_t>({2, 2}, {1, 2, 3, 4}),
                    Tensor::from<uint8_t>({2, 1}, {5, 6}), Tensor::from<uint8_t>({2}, {1, 3}),
                    Tensor::from<uint8_t>({}, {5})};
  const Tensor y = run_op(integer)[0];
  EXPECT_EQ(y.dtype(), DType::kI32);
  EXPECT_EQ(y.to_int64(), (std::vector<int64_t>{1, 1}));  // (0·0 + 1·1), (0·0 + 1·1)
  OpCall q = op_call("QLinearMatMul", 21);
  q.inputs = {
      Tensor::from<uint8_t>({1, 2}, {10, 20}), Tensor::from<float>({}, {0.5f}),
      Tensor::from<uint8_t>({}, {0}),          Tensor::from<uint8_t>({2, 2}, {1, 2, 3, 200}),
      Tensor::from<float>({}, {0.25f}),        Tensor::from<uint8_t>({}, {0}),
      Tensor::from<float>({}, {1.0f}),         Tensor::from<uint8_t>({}, {3})};
  // [10 20] x [[1 2] [3 200]] = [70 4020]; x 0.125 = [8.75 502.5] -> [9 502] + 3 -> [12 255].
  EXPECT_EQ(run_op(q)[0].to_int64(), (std::vector<int64_t>{12, 255}));
  integer.inputs[1] = Tensor::from<float>({2, 1}, {5, 6});
  EXPECT_THROW(run_op(integer), Error);
}

// strata's QLinearGemm: QLinearMatMul with an int32 bias added to the sums before requantizing.
TEST(QuantizedMatMul, QLinearGemmAddsItsBiasToTheSums) {
  OpCall q = op_call("QLinearGemm", 13);
  q.inputs = {
      Tensor::from<uint8_t>({1, 2}, {10, 20}), Tensor::from<float>({}, {0.5f}),
      Tensor::from<uint8_t>({}, {0}),          Tensor::from<int8_t>({2, 2}, {1, 2, 3, -100}),
      Tensor::from<float>({}, {0.25f}),        Tensor::from<int8_t>({}, {0}),
      Tensor::from<float>({}, {1.0f}),         Tensor::from<uint8_t>({}, {3}),
      Tensor::from<int32_t>({2}, {-66, 1960})};
  // [10 20] x [[1 2] [3 -100]] = [70 -1980]; + [-66 1960] = [4 -20]; x 0.125 = [0.5 -2.5] -> [0 -2]
  // + 3.
  EXPECT_EQ(run_op(q)[0].to_int64(), (std::vector<int64_t>{3, 1}));
  q.inputs[8] = Tensor::from<int32_t>({3}, {0, 0, 0});
  EXPECT_THROW(run_op(q), Error);  // one bias value per column
  q.inputs[8] = Tensor::from<float>({2}, {0, 0});
  EXPECT_THROW(run_op(q), Error);
}

// strata's MatMulIntegerToFloat: float(sums) · scale + bias, per column; bad scale and bias shapes.
TEST(QuantizedMatMul, MatMulIntegerToFloatScalesAndAddsTheBias) {
  OpCall q = op_call("MatMulIntegerToFloat", 13);
  q.inputs = {
      Tensor::from<uint8_t>({1, 2}, {10, 20}), Tensor::from<int8_t>({2, 2}, {1, 2, 3, -100}),
      Tensor::from<uint8_t>({}, {2}),          Tensor::from<int8_t>({}, {0}),
      Tensor::from<float>({2}, {0.5f, 0.25f}), Tensor::from<float>({2}, {1, -1})};
  // [8 18] x [[1 2] [3 -100]] = [62 -1784]; x [0.5 0.25] = [31 -446]; + [1 -1].
  EXPECT_EQ(run_op(q)[0].to_double(), (std::vector<double>{32, -447}));
  OpCall bad_scale = q;
  bad_scale.inputs[4] = Tensor::from<float>({3}, {1, 1, 1});
  EXPECT_THROW(run_op(bad_scale), Error);
  q.inputs[5] = Tensor::from<float>({}, {1});
  EXPECT_THROW(run_op(q), Error);  // the bias holds one value per column
}

// strata's QLinearAdd: (0.5·(10 - 4) + 0.25·(-8 - (-2))) / 0.5 = 3, + 7 = 10; saturation; bad
// shapes and scales.
TEST(QLinearAdd, AddsDequantizedValuesAndRequantizes) {
  OpCall q = op_call("QLinearAdd", 13);
  q.inputs = {Tensor::from<uint8_t>({2}, {10, 255}), Tensor::from<float>({}, {0.5f}),
              Tensor::from<uint8_t>({}, {4}),        Tensor::from<int8_t>({2}, {-8, 127}),
              Tensor::from<float>({}, {0.25f}),      Tensor::from<int8_t>({}, {-2}),
              Tensor::from<float>({}, {0.5f}),       Tensor::from<uint8_t>({}, {7})};
  EXPECT_EQ(run_op(q)[0].to_int64(), (std::vector<int64_t>{10, 255}));
  OpCall zero_scale = q;
  zero_scale.inputs[4] = Tensor::from<float>({}, {0.0f});
  EXPECT_THROW(run_op(zero_scale), Error);
  q.inputs[3] = Tensor::from<int8_t>({3}, {1, 2, 3});
  EXPECT_THROW(run_op(q), Error);
}

}  // namespace
}  // namespace strata::test
