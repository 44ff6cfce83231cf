#include <cmath>

#include "ops/infer_util.h"

namespace strata::test {
namespace {

Tensor ties() {
  return Tensor::from<float>({2, 3}, {1, 5, 5, 2, 0, 0});
}

struct ArgCase {
  const char* op;
  int64_t axis;
  int64_t select_last;
  std::vector<int64_t> shape;
  std::vector<int64_t> expected;
};

TEST(ArgReduce, AxesKeepdimsAndTies) {
  const ArgCase cases[] = {
      {"ArgMax", 1, 0, {2, 1}, {1, 0}},    {"ArgMax", 1, 1, {2, 1}, {2, 0}},
      {"ArgMin", -1, 0, {2, 1}, {0, 1}},   {"ArgMin", 1, 1, {2, 1}, {0, 2}},
      {"ArgMax", 0, 0, {1, 3}, {1, 0, 0}}, {"ArgMin", 0, 1, {1, 3}, {0, 1, 1}},
  };
  for (const ArgCase& c : cases) {
    OpCall call{
        .op_type = c.op,
        .opset = 13,
        .attributes = {{"axis", attr_int(c.axis)}, {"select_last_index", attr_int(c.select_last)}}};
    call.inputs = {ties()};
    std::vector<Tensor> out = run_op(call);
    EXPECT_EQ(out[0].dtype(), DType::kI64);
    EXPECT_EQ(out[0].shape(), c.shape) << c.op << " axis " << c.axis;
    EXPECT_EQ(values_of<int64_t>(out[0]), c.expected) << c.op << " axis " << c.axis;
  }
}

TEST(ArgReduce, NoKeepdimsAndIntegers) {
  OpCall call{.op_type = "ArgMax", .opset = 11, .attributes = {{"keepdims", attr_int(0)}}};
  call.inputs = {Tensor::from<int32_t>({3, 2}, {1, -4, 7, 2, 3, 9})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2}));
}

TEST(ArgReduce, NaNWins) {
  OpCall call{.op_type = "ArgMin", .opset = 13};
  call.inputs = {Tensor::from<float>({3}, {1, NAN, -1})};
  EXPECT_EQ(values_of<int64_t>(run_op(call)[0]), (std::vector<int64_t>{1}));
}

TEST(ArgReduce, SymbolicShape) {
  OpCall call{.op_type = "ArgMax", .opset = 13, .attributes = {{"axis", attr_int(-1)}}};
  std::vector<ops::Meta> out = infer_only(call, {meta(DType::kF32, Shape{Dim::symbol("N"), 7})});
  EXPECT_EQ(out[0].shape, (Shape{Dim::symbol("N"), 1}));
}

TEST(ArgReduce, Errors) {
  OpCall bad_axis{.op_type = "ArgMax", .opset = 13, .attributes = {{"axis", attr_int(2)}}};
  bad_axis.inputs = {ties()};
  EXPECT_THROW(run_op(bad_axis), Error);
  OpCall empty_axis{.op_type = "ArgMax", .opset = 13, .attributes = {{"axis", attr_int(1)}}};
  empty_axis.inputs = {Tensor::zeros(DType::kF32, {2, 0})};
  EXPECT_THROW(run_op(empty_axis), Error);
  OpCall scalar{.op_type = "ArgMin", .opset = 13};
  scalar.inputs = {Tensor::from<float>({}, {1})};
  EXPECT_THROW(run_op(scalar), Error);
  OpCall boolean{.op_type = "ArgMin", .opset = 13};
  boolean.inputs = {Tensor::from<bool>({1}, {true})};
  EXPECT_THROW(run_op(boolean), Error);
}

}  // namespace
}  // namespace strata::test
