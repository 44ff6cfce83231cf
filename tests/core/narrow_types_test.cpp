// The 8-bit float formats and 4-bit integers: every bit pattern decodes and encodes back to
// itself, known values (largest finite, smallest subnormal, ties) convert as ONNX's Cast table
// says, with and without saturation.
#include "core/narrow_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace strata::test {
namespace {

constexpr DType kFormats[] = {kF8E4M3FN, kF8E4M3FNUZ, kF8E5M2, kF8E5M2FNUZ};
const double kDoubleInf = std::numeric_limits<double>::infinity();

TEST(Float8, EveryBitPatternRoundTrips) {
  for (DType f : kFormats) {
    int nans = 0;
    for (int bits = 0; bits < 256; ++bits) {
      const float v = float8_to_float(uint8_t(bits), f);
      if (std::isnan(v)) {
        ++nans;
        continue;
      }
      EXPECT_EQ(float8_from_double(v, f, false), bits) << dtype_name(f) << " " << bits;
    }
    // E4M3FN: 0x7f, 0xff; FNUZ: 0x80; E5M2: 6 NaN patterns (0x7d-0x7f, 0xfd-0xff).
    const int want = f == kF8E4M3FN ? 2 : f == kF8E5M2 ? 6 : 1;
    EXPECT_EQ(nans, want) << dtype_name(f);
  }
}

TEST(Float8, LargestAndSmallestValues) {
  EXPECT_EQ(float8_to_float(0x7e, kF8E4M3FN), 448.0f);
  EXPECT_EQ(float8_to_float(0x7f, kF8E4M3FNUZ), 240.0f);
  EXPECT_EQ(float8_to_float(0x7b, kF8E5M2), 57344.0f);
  EXPECT_EQ(float8_to_float(0x7f, kF8E5M2FNUZ), 57344.0f);
  EXPECT_EQ(float8_to_float(0x7c, kF8E5M2), INFINITY);
  EXPECT_EQ(float8_to_float(0x01, kF8E4M3FN), std::ldexp(1.0f, -9));
  EXPECT_EQ(float8_to_float(0x01, kF8E4M3FNUZ), std::ldexp(1.0f, -10));
  EXPECT_EQ(float8_to_float(0x01, kF8E5M2), std::ldexp(1.0f, -16));
  EXPECT_EQ(float8_to_float(0x38, kF8E4M3FN), 1.0f);
}

TEST(Float8, RoundsToNearestEven) {
  const DType fn = kF8E4M3FN;
  EXPECT_EQ(float8_from_double(1.0625, fn, true), 0x38);  // halfway 1 and 1.125: even is 1
  EXPECT_EQ(float8_from_double(1.1875, fn, true), 0x3a);  // halfway 1.125 and 1.25: 1.25
  EXPECT_EQ(float8_from_double(1.07, fn, true), 0x39);
  EXPECT_EQ(float8_from_double(std::ldexp(1.0, -10), fn, true), 0x00);      // half the smallest
  EXPECT_EQ(float8_from_double(3 * std::ldexp(1.0, -10), fn, true), 0x02);  // 1.5 steps: 2
  EXPECT_EQ(float8_from_double(-std::ldexp(1.0, -12), fn, true), 0x80);     // -0 kept
  EXPECT_EQ(float8_from_double(-std::ldexp(1.0, -12), kF8E4M3FNUZ, true), 0x00);
  EXPECT_EQ(float8_from_double(-0.0, kF8E5M2FNUZ, true), 0x00);
  EXPECT_EQ(float8_from_double(464, fn, false), 0x7e);  // halfway 448 and 480: 448
}

TEST(Float8, SaturationFollowsTheCastTable) {
  EXPECT_EQ(float8_from_double(1e6, kF8E4M3FN, true), 0x7e);
  EXPECT_EQ(float8_from_double(-kDoubleInf, kF8E4M3FN, true), 0xfe);
  EXPECT_EQ(float8_from_double(kDoubleInf, kF8E4M3FNUZ, true), 0x7f);
  EXPECT_EQ(float8_from_double(kDoubleInf, kF8E5M2, true), 0x7b);
  EXPECT_EQ(float8_from_double(470, kF8E4M3FN, false), 0x7f);  // NaN
  EXPECT_EQ(float8_from_double(-kDoubleInf, kF8E4M3FN, false), 0xff);
  EXPECT_EQ(float8_from_double(kDoubleInf, kF8E4M3FNUZ, false), 0x80);
  EXPECT_EQ(float8_from_double(-1e6, kF8E5M2, false), 0xfc);  // -inf
  EXPECT_EQ(float8_from_double(kDoubleInf, kF8E5M2FNUZ, false), 0x80);
  EXPECT_TRUE(std::isnan(float(f8e5m2fnuz(std::nanf("")))));
}

TEST(Float4, ValuesRoundingAndSaturation) {
  // Every pattern: 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives; each encodes back to itself.
  const float magnitudes[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int bits = 0; bits < 16; ++bits) {
    const float v = float8_to_float(uint8_t(bits), kF4E2M1);
    EXPECT_EQ(std::fabs(v), magnitudes[bits & 7]) << bits;
    EXPECT_EQ(std::signbit(v), bits >= 8) << bits;
    EXPECT_EQ(float8_from_double(v, kF4E2M1, true), bits) << bits;
  }
  EXPECT_EQ(float8_from_double(0.25, kF4E2M1, true), 0x0);  // tie: to even (0)
  EXPECT_EQ(float8_from_double(-3.5, kF4E2M1, true), 0xe);  // tie: to even (-4)
  EXPECT_EQ(float8_from_double(1e6, kF4E2M1, false), 0x7);  // no infinity: always saturates
  EXPECT_EQ(float8_from_double(-kDoubleInf, kF4E2M1, true), 0xf);
  EXPECT_EQ(float8_from_double(std::nan(""), kF4E2M1, true), 0x8);  // no NaN: the -0 pattern
  EXPECT_EQ(dtype_name(kF4E2M1), "float4e2m1");
  EXPECT_EQ(packed_bits(kF4E2M1), 4);
}

TEST(Int4, ValuesWrapIntoRange) {
  EXPECT_EQ(int4(7).value, 7);
  EXPECT_EQ(int4(8).value, -8);
  EXPECT_EQ(int4(-9).value, 7);
  EXPECT_EQ(uint4(16).value, 0);
  EXPECT_EQ(uint4(-1).value, 15);
  EXPECT_EQ(int2(2).value, -2);
  EXPECT_EQ(int2(-3).value, 1);
  EXPECT_EQ(uint2(5).value, 1);
  EXPECT_EQ(packed_int_bits(kU2), 2);
  EXPECT_EQ(dtype_name(kI2), "int2");
  EXPECT_EQ(dtype_size(kI4), 1u);
  EXPECT_EQ(dtype_name(kU4), "uint4");
}

}  // namespace
}  // namespace strata::test
