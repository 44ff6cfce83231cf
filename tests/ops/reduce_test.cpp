#include <cmath>
#include <limits>

#include "ops/infer_util.h"
#include "ops/op_cost_util.h"

namespace strata::test {
namespace {

// Every reduction of [[1, -2], [3, 4]] over axis 1.
struct ReduceCase {
  const char* op;
  std::vector<float> expected;
};

const ReduceCase kCases[] = {
    {"ReduceL1", {3, 7}},
    {"ReduceL2", {std::sqrt(5.0f), 5}},
    {"ReduceLogSumExp", {1.0485874f, 4.3132617f}},
    {"ReduceMax", {1, 4}},
    {"ReduceMean", {-0.5f, 3.5f}},
    {"ReduceMin", {-2, 3}},
    {"ReduceProd", {-2, 12}},
    {"ReduceSum", {-1, 7}},
    {"ReduceSumSquare", {5, 25}},
};

Tensor matrix() {
  return Tensor::from<float>({2, 2}, {1, -2, 3, 4});
}

TEST(Reduce, EachOpWithAxesAttribute) {
  for (const ReduceCase& c : kCases) {
    OpCall call{.op_type = c.op, .opset = 11, .attributes = {{"axes", attr_ints({1})}}};
    call.inputs = {matrix()};
    std::vector<Tensor> out = run_op(call);
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 1})) << c.op;
    expect_near(out[0], c.expected, 1e-5f);
  }
}

// ReduceLogSum: log of the sum (of positive values here; log of a negative sum is NaN).
TEST(Reduce, LogSumIsTheLogOfTheSum) {
  OpCall call{.op_type = "ReduceLogSum", .opset = 18, .attributes = {{"keepdims", attr_int(0)}}};
  call.inputs = {Tensor::from<float>({2, 2}, {1, 2, 3, 4}), Tensor::from<int64_t>({1}, {0})};
  expect_near(run_op(call)[0], {std::log(4.0f), std::log(6.0f)}, 1e-6f);
}

TEST(Reduce, EachOpWithAxesInputAndNegativeAxis) {
  for (const ReduceCase& c : kCases) {
    OpCall call{.op_type = c.op, .opset = 18, .attributes = {{"keepdims", attr_int(0)}}};
    call.inputs = {matrix(), int64s({-1})};
    std::vector<Tensor> out = run_op(call);
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2})) << c.op;
    expect_near(out[0], c.expected, 1e-5f);
  }
}

TEST(Reduce, NoAxesReducesEverything) {
  OpCall call{.op_type = "ReduceSum", .opset = 13};
  call.inputs = {matrix()};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 1}));
  expect_near(out[0], {6});
}

TEST(Reduce, NoopWithEmptyAxesReducesEachElementAlone) {
  OpCall call{.op_type = "ReduceSumSquare",
              .opset = 18,
              .attributes = {{"noop_with_empty_axes", attr_int(1)}}};
  call.inputs = {matrix(), int64s({})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {1, 4, 9, 16});
}

TEST(Reduce, SeveralAxesOfA3dTensor) {
  OpCall call{.op_type = "ReduceSum", .opset = 13, .attributes = {{"keepdims", attr_int(0)}}};
  call.inputs = {Tensor::from<float>({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), int64s({0, 2})};
  expect_near(run_op(call)[0], {1 + 2 + 5 + 6, 3 + 4 + 7 + 8});
}

TEST(Reduce, EmptySetGivesTheIdentity) {
  const std::pair<const char*, float> cases[] = {{"ReduceSum", 0},     {"ReduceProd", 1},
                                                 {"ReduceMax", -kInf}, {"ReduceMin", kInf},
                                                 {"ReduceL2", 0},      {"ReduceLogSumExp", -kInf}};
  for (const auto& [op, expected] : cases) {
    OpCall call{.op_type = op, .opset = 18};
    call.inputs = {Tensor::zeros(DType::kF32, {2, 0, 3}), int64s({1})};
    std::vector<Tensor> out = run_op(call);
    EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 1, 3})) << op;
    for (float v : values_of<float>(out[0])) EXPECT_EQ(v, expected) << op;
  }
  OpCall mean{.op_type = "ReduceMean", .opset = 18};
  mean.inputs = {Tensor::zeros(DType::kF32, {0}), int64s({0})};
  EXPECT_TRUE(std::isnan(values_of<float>(run_op(mean)[0])[0]));
}

TEST(Reduce, IntegerTypes) {
  OpCall mean{.op_type = "ReduceMean", .opset = 13, .attributes = {{"axes", attr_ints({0})}}};
  mean.inputs = {Tensor::from<int32_t>({3}, {1, 2, 4})};
  EXPECT_EQ(values_of<int32_t>(run_op(mean)[0]), (std::vector<int32_t>{2}));  // 7/3 truncated
  OpCall max{.op_type = "ReduceMax", .opset = 18};
  max.inputs = {Tensor::zeros(DType::kU8, {0}), int64s({0})};
  EXPECT_EQ(values_of<uint8_t>(run_op(max)[0]), (std::vector<uint8_t>{0}));  // lowest uint8
  OpCall prod{.op_type = "ReduceProd", .opset = 18};
  prod.inputs = {Tensor::from<int64_t>({3}, {-3, 5, 7})};
  EXPECT_EQ(values_of<int64_t>(run_op(prod)[0]), (std::vector<int64_t>{-105}));
}

TEST(Reduce, BoolMaxAndMin) {
  Tensor x = Tensor::from<bool>({2, 2}, {true, false, false, false});
  OpCall max{.op_type = "ReduceMax", .opset = 20};
  max.inputs = {x, int64s({1})};
  EXPECT_EQ(values_of<bool>(run_op(max)[0]), (std::vector<bool>{true, false}));
  OpCall min{.op_type = "ReduceMin", .opset = 20};
  min.inputs = {x, int64s({0})};
  EXPECT_EQ(values_of<bool>(run_op(min)[0]), (std::vector<bool>{false, false}));
}

TEST(Reduce, MaxPropagatesNaN) {
  OpCall call{.op_type = "ReduceMax", .opset = 18};
  call.inputs = {Tensor::from<float>({3}, {1, NAN, 2})};
  EXPECT_TRUE(std::isnan(values_of<float>(run_op(call)[0])[0]));
}

TEST(Reduce, SymbolicDimsStaySymbolic) {
  OpCall call{.op_type = "ReduceMean", .opset = 18, .attributes = {{"keepdims", attr_int(0)}}};
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, Shape{Dim::symbol("N"), 3, 4}), known(int64s({-1}))});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("N"), 3}));
}

TEST(Reduce, AxesInputNotKnownIsNotStatic) {
  OpCall call{.op_type = "ReduceSum", .opset = 13};
  EXPECT_THROW(infer_only(call, {meta(DType::kF32, Shape{2, 3}), meta(DType::kI64, Shape{1})}),
               NotStatic);
}

TEST(Reduce, Cost) {
  OpCall call{.op_type = "ReduceL2", .opset = 18};
  ops::Cost c = cost_of(call, {meta(DType::kF32, Shape{4, 5}), known(int64s({1}))});
  EXPECT_EQ(c.flops, 2 * 20 + 4);  // square and add per input, sqrt per output
  EXPECT_EQ(c.bytes_written, 4 * 4);
}

TEST(Reduce, Errors) {
  OpCall out_of_range{.op_type = "ReduceSum", .opset = 13};
  out_of_range.inputs = {matrix(), int64s({2})};
  EXPECT_THROW(run_op(out_of_range), Error);
  OpCall repeated{
      .op_type = "ReduceMax", .opset = 13, .attributes = {{"axes", attr_ints({0, -2})}}};
  repeated.inputs = {matrix()};
  EXPECT_THROW(run_op(repeated), Error);
  OpCall axes_attr_too_new{
      .op_type = "ReduceMax", .opset = 18, .attributes = {{"axes", attr_ints({0})}}};
  axes_attr_too_new.inputs = {matrix()};
  EXPECT_THROW(run_op(axes_attr_too_new), Error);
  OpCall bool_sum{.op_type = "ReduceSum", .opset = 13};
  bool_sum.inputs = {Tensor::from<bool>({2}, {true, false})};
  EXPECT_THROW(run_op(bool_sum), Error);
}

}  // namespace
}  // namespace strata::test
