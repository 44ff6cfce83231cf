#include <limits>

#include "ops/op_test_util.h"

namespace strata::test {
namespace {

template <class T>
OpCall range(T start, T limit, T delta) {
  OpCall call;
  call.op_type = "Range";
  call.inputs = {Tensor::from<T>({}, {start}), Tensor::from<T>({}, {limit}),
                 Tensor::from<T>({}, {delta})};
  return call;
}

TEST(Range, FloatPositiveDelta) {
  expect_near(run_op(range<float>(1, 5, 2))[0], {1, 3});
  expect_near(run_op(range<float>(0, 1, 0.3f))[0], {0, 0.3f, 0.6f, 0.9f});
}

TEST(Range, IntegerNegativeDelta) {
  EXPECT_EQ(values_of<int32_t>(run_op(range<int32_t>(10, 4, -3))[0]),
            (std::vector<int32_t>{10, 7}));
  EXPECT_EQ(values_of<int16_t>(run_op(range<int16_t>(-1, -4, -1))[0]),
            (std::vector<int16_t>{-1, -2, -3}));
}

TEST(Range, EmptyWhenLimitIsBehind) {
  EXPECT_EQ(run_op(range<int64_t>(5, 1, 1))[0].shape(), (std::vector<int64_t>{0}));
  EXPECT_EQ(run_op(range<double>(5, 1, 0.5))[0].numel(), 0);
}

TEST(Range, Errors) {
  EXPECT_THROW(run_op(range<int64_t>(0, 5, 0)), Error);
  EXPECT_THROW(run_op(range<float>(0, 5, 0)), Error);
  // Absurd counts fail (checked arithmetic), without overflow on the span.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_THROW(run_op(range<int64_t>(kMin, kMax, 1)), Error);
  EXPECT_THROW(run_op(range<float>(0, 1e30f, 1)), Error);
  EXPECT_THROW(run_op(range<float>(0, std::numeric_limits<float>::infinity(), 1)), Error);
  OpCall mixed = range<int64_t>(0, 5, 1);
  mixed.inputs[1] = Tensor::from<int32_t>({}, {5});
  EXPECT_THROW(run_op(mixed), Error);
  EXPECT_THROW(run_op(range<uint8_t>(0, 5, 1)), Error);
}

}  // namespace
}  // namespace strata::test
