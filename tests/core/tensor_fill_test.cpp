// Tensor::fill_with (src/core/tensor.cpp): every element gets the value, whatever the count (the
// copies double, so odd counts and counts just past a power of two test the last partial copy).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/tensor.h"

namespace strata::test {
namespace {

TEST(TensorFill, EveryElementGetsTheValueForAnyCount) {
  for (int64_t n : {1, 2, 3, 7, 8, 9, 1000, 1025}) {
    Tensor t = Tensor::zeros(DType::kI64, {n});
    const int64_t value = -1234567890123;
    t.fill_with(&value);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(t.data<int64_t>()[i], value) << n << " " << i;
  }
}

TEST(TensorFill, AZeroValueClearsAndOneByteTypesWork) {
  Tensor f = Tensor::from<float>({3}, {1, 2, 3});
  const float zero = 0.0f;
  f.fill_with(&zero);
  EXPECT_EQ(f.to_double(), (std::vector<double>{0, 0, 0}));
  const float negative_zero = -0.0f;  // not all zero bytes: copied, keeps its sign
  f.fill_with(&negative_zero);
  EXPECT_TRUE(std::signbit(f.data<float>()[2]));
  Tensor b = Tensor::zeros(DType::kU8, {5, 3});
  const uint8_t seven = 7;
  b.fill_with(&seven);
  EXPECT_EQ(b.to_int64(), std::vector<int64_t>(15, 7));
  Tensor empty = Tensor::zeros(DType::kF32, {0, 4});
  empty.fill_with(&zero);  // nothing to write
  EXPECT_EQ(empty.numel(), 0);
}

}  // namespace
}  // namespace strata::test
