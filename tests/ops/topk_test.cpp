#include <cmath>

#include "ops/infer_util.h"

namespace strata::test {
namespace {

Tensor data() {
  return Tensor::from<float>({2, 4}, {3, 1, 3, 2, 0, 4, 4, 1});
}

TEST(TopK, LargestWithTiesLowerIndexFirst) {
  OpCall call{.op_type = "TopK", .opset = 11, .num_outputs = 2};
  call.inputs = {data(), int64s({3})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {3, 3, 2, 4, 4, 1});
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{0, 2, 3, 1, 2, 3}));
}

TEST(TopK, SmallestAlongAxis0) {
  OpCall call{.op_type = "TopK",
              .opset = 11,
              .attributes = {{"axis", attr_int(0)}, {"largest", attr_int(0)}},
              .num_outputs = 2};
  call.inputs = {data(), int64s({1})};
  std::vector<Tensor> out = run_op(call);
  expect_near(out[0], {0, 1, 3, 1});
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 0, 0, 1}));
}

TEST(TopK, KAttributeBeforeOpset10) {
  OpCall call{.op_type = "TopK", .opset = 9, .attributes = {{"k", attr_int(1)}}, .num_outputs = 2};
  call.inputs = {Tensor::from<int32_t>({5}, {2, 9, -1, 9, 0})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{9}));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1}));
}

TEST(TopK, NaNCountsAsLargest) {
  OpCall call{.op_type = "TopK", .opset = 11, .num_outputs = 2};
  call.inputs = {Tensor::from<float>({3}, {1, NAN, 2}), int64s({2})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_TRUE(std::isnan(values_of<float>(out[0])[0]));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 2}));
}

TEST(TopK, ZeroKAndUnknownK) {
  OpCall call{.op_type = "TopK", .opset = 11, .num_outputs = 2};
  call.inputs = {data(), int64s({0})};
  EXPECT_EQ(run_op(call)[0].shape(), (std::vector<int64_t>{2, 0}));
  EXPECT_THROW(infer_only(call, {meta(DType::kF32, Shape{2, 4}), meta(DType::kI64, Shape{1})}),
               NotStatic);
}

TEST(TopK, Errors) {
  OpCall too_many{.op_type = "TopK", .opset = 11, .num_outputs = 2};
  too_many.inputs = {data(), int64s({5})};
  EXPECT_THROW(run_op(too_many), Error);
  OpCall negative{.op_type = "TopK", .opset = 11, .num_outputs = 2};
  negative.inputs = {data(), int64s({-1})};
  EXPECT_THROW(run_op(negative), Error);
  OpCall bad_axis{
      .op_type = "TopK", .opset = 11, .attributes = {{"axis", attr_int(2)}}, .num_outputs = 2};
  bad_axis.inputs = {data(), int64s({1})};
  EXPECT_THROW(run_op(bad_axis), Error);
  OpCall missing_k{.op_type = "TopK", .opset = 9, .num_outputs = 2};
  missing_k.inputs = {data()};
  EXPECT_THROW(run_op(missing_k), Error);
}

}  // namespace
}  // namespace strata::test
