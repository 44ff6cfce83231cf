#include "report/units.h"

#include <gtest/gtest.h>

namespace strata::report {
namespace {

TEST(Units, MillisecondsKeepThreeSignificantDigitsBelowOne) {
  EXPECT_EQ(milliseconds(12.5), "12.500");
  EXPECT_EQ(milliseconds(0.112), "0.112");
  EXPECT_EQ(milliseconds(0.0123), "0.0123");
  EXPECT_EQ(milliseconds(0.00042), "0.000420");
  EXPECT_EQ(milliseconds(2e-6), "0.000002");  // at most six decimals (nanoseconds)
  EXPECT_EQ(milliseconds(1e-17), "0.000");    // rounding noise of a zero spread
  EXPECT_EQ(milliseconds(0), "0.000");
  EXPECT_EQ(milliseconds(-0.004), "-0.00400");
}

TEST(Units, CountsBytesAndPercentages) {
  EXPECT_EQ(si_count(12), "12");
  EXPECT_EQ(si_count(442368), "442.37 k");
  EXPECT_EQ(si_count(4.718592e9), "4.72 G");
  EXPECT_EQ(human_bytes(512), "512 B");
  EXPECT_EQ(human_bytes(79616), "77.8 KiB");
  EXPECT_EQ(human_bytes(52428800), "50.0 MiB");
  EXPECT_EQ(percent(12.345), "12.3%");
  EXPECT_EQ(percent(-1), "-");
  EXPECT_EQ(fixed(1.23456, 2), "1.23");
}

}  // namespace
}  // namespace strata::report
