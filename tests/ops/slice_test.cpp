#include "ops/infer_util.h"

namespace strata::test {
namespace {

// Slices arange(10) (1-D) with starts/ends/steps given as inputs.
std::vector<int32_t> slice_1d(int64_t start, int64_t end, int64_t step) {
  OpCall call{.op_type = "Slice"};
  std::vector<int32_t> data(10);
  for (int32_t i = 0; i < 10; ++i) data[size_t(i)] = i;
  call.inputs = {Tensor::from<int32_t>({10}, data), int64s({start}), int64s({end}), int64s({0}),
                 int64s({step})};
  return values_of<int32_t>(run_op(call)[0]);
}

TEST(Slice, ClampsLikeTheSpec) {
  EXPECT_EQ(slice_1d(2, 5, 1), (std::vector<int32_t>{2, 3, 4}));
  EXPECT_EQ(slice_1d(-3, 100, 1), (std::vector<int32_t>{7, 8, 9}));
  EXPECT_EQ(slice_1d(8, 1, -3), (std::vector<int32_t>{8, 5, 2}));
  EXPECT_EQ(slice_1d(100, -100, -4), (std::vector<int32_t>{9, 5, 1}));
  EXPECT_EQ(slice_1d(-1, INT64_MIN, -1).size(), 10u);
  EXPECT_EQ(slice_1d(0, 10, INT64_MAX), (std::vector<int32_t>{0}));
  EXPECT_EQ(slice_1d(20, 30, 1), (std::vector<int32_t>{}));
  EXPECT_EQ(slice_1d(5, 2, 1), (std::vector<int32_t>{}));
}

TEST(Slice, AxesAndDefaults2D) {
  OpCall call{.op_type = "Slice"};
  const Tensor x = Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  call.inputs = {x, int64s({1}), int64s({INT64_MAX}), int64s({-1})};  // no steps
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {2, 3, 5, 6});
  call.inputs = {x, int64s({1, 0}), int64s({2, 2})};  // no axes: 0, 1
  expect_near(run_op(call)[0], {4, 5});
}

TEST(Slice, AttributesBeforeOpset10) {
  OpCall call{.op_type = "Slice",
              .opset = 9,
              .attributes = {
                  {"starts", attr_ints({1})}, {"ends", attr_ints({3})}, {"axes", attr_ints({1})}}};
  call.inputs = {Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})};
  expect_near(run_op(call)[0], {2, 3, 5, 6});
}

TEST(Slice, WholeAxisKeepsSymbolicDim) {
  OpCall call{.op_type = "Slice"};
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 8}), known(int64s({0, 2})),
                        known(int64s({INT64_MAX, 6}))});
  EXPECT_EQ(out[0].shape.str(), "[N,4]");
}

TEST(Slice, Errors) {
  const Tensor x = Tensor::zeros(DType::kF32, {4});
  for (const std::vector<Tensor>& inputs : std::vector<std::vector<Tensor>>{
           {x, int64s({0}), int64s({1}), int64s({0}), int64s({0})},  // step 0
           {x, int64s({0}), int64s({1, 2})},                         // lengths differ
           {x, int64s({0}), int64s({1}), int64s({1})},               // axis out of range
           {x, int64s({0, 0}), int64s({1, 1}), int64s({0, -1})},     // repeated axis
       }) {
    OpCall call{.op_type = "Slice"};
    call.inputs = inputs;
    EXPECT_THROW(run_op(call), Error);
  }
}

}  // namespace
}  // namespace strata::test
