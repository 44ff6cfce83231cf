#include "ops/infer_util.h"

namespace strata::test {
namespace {

Tensor axis(int32_t a) {
  return Tensor::from<int32_t>({}, {a});
}

struct CumSumCase {
  int64_t exclusive;
  int64_t reverse;
  std::vector<float> expected;
};

TEST(CumSum, ExclusiveAndReverse) {
  const CumSumCase cases[] = {
      {0, 0, {1, 3, 6, 10}}, {1, 0, {0, 1, 3, 6}}, {0, 1, {10, 9, 7, 4}}, {1, 1, {9, 7, 4, 0}}};
  for (const CumSumCase& c : cases) {
    OpCall call{
        .op_type = "CumSum",
        .opset = 14,
        .attributes = {{"exclusive", attr_int(c.exclusive)}, {"reverse", attr_int(c.reverse)}}};
    call.inputs = {Tensor::from<float>({4}, {1, 2, 3, 4}), axis(0)};
    expect_near(run_op(call)[0], c.expected);
  }
}

TEST(CumSum, NegativeAxisOn2dInt64) {
  OpCall call{.op_type = "CumSum", .opset = 11};
  call.inputs = {Tensor::from<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}), int64s({-2})};
  EXPECT_EQ(values_of<int64_t>(run_op(call)[0]), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
}

TEST(CumSum, UnknownAxisKeepsTheShape) {
  OpCall call{.op_type = "CumSum", .opset = 14};
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, Shape{Dim::symbol("N"), 3}), meta(DType::kI64, Shape{})});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("N"), 3}));
}

TEST(CumSum, Errors) {
  OpCall bad_axis{.op_type = "CumSum", .opset = 14};
  bad_axis.inputs = {Tensor::from<float>({2}, {1, 2}), axis(1)};
  EXPECT_THROW(run_op(bad_axis), Error);
  OpCall two_axes{.op_type = "CumSum", .opset = 14};
  two_axes.inputs = {Tensor::from<float>({2}, {1, 2}), int64s({0, 0})};
  EXPECT_THROW(run_op(two_axes), Error);
  OpCall float_axis{.op_type = "CumSum", .opset = 14};
  float_axis.inputs = {Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({}, {0})};
  EXPECT_THROW(run_op(float_axis), Error);
}

// CumProd: running products; exclusive starts at 1; reverse from the end.
TEST(CumProd, RunningProductsExclusiveAndReverse) {
  auto cumprod = [](int64_t exclusive, int64_t reverse) {
    OpCall call = op_call("CumProd", 26,
                          {{"exclusive", attr_int(exclusive)}, {"reverse", attr_int(reverse)}});
    call.inputs = {Tensor::from<float>({4}, {1, 2, 3, 4}), Tensor::from<int64_t>({}, {0})};
    return run_op(call)[0].to_double();
  };
  EXPECT_EQ(cumprod(0, 0), (std::vector<double>{1, 2, 6, 24}));
  EXPECT_EQ(cumprod(1, 0), (std::vector<double>{1, 1, 2, 6}));
  EXPECT_EQ(cumprod(0, 1), (std::vector<double>{24, 24, 12, 4}));
  EXPECT_EQ(cumprod(1, 1), (std::vector<double>{24, 12, 4, 1}));
}

}  // namespace
}  // namespace strata::test
