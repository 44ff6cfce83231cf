#include "ops/infer_util.h"

namespace strata::test {
namespace {

// Runs Squeeze/Unsqueeze with axes as an attribute (opset 11) or an input (opset 13).
std::vector<int64_t> run_axes(const std::string& op, std::vector<int64_t> in_shape,
                              std::optional<std::vector<int64_t>> axes, int64_t opset = 13) {
  OpCall call{.op_type = op, .opset = opset};
  call.inputs = {Tensor::zeros(DType::kF32, in_shape)};
  if (axes && opset < 13) call.attributes["axes"] = attr_ints(*axes);
  if (axes && opset >= 13)
    call.inputs.push_back(Tensor::from<int64_t>({int64_t(axes->size())}, *axes));
  return run_op(call)[0].shape();
}

TEST(Squeeze, AxesAsInputOrAttribute) {
  EXPECT_EQ(run_axes("Squeeze", {1, 3, 1, 2}, std::vector<int64_t>{0, -2}),
            (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(run_axes("Squeeze", {1, 3, 1, 2}, std::vector<int64_t>{2}, 11),
            (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(run_axes("Squeeze", {1, 3, 1, 2}, std::nullopt), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(run_axes("Squeeze", {1, 1}, std::nullopt), (std::vector<int64_t>{}));
}

TEST(Squeeze, KeepsValues) {
  OpCall call{.op_type = "Squeeze"};
  call.inputs = {Tensor::from<uint16_t>({1, 2}, {7, 9})};
  EXPECT_EQ(values_of<uint16_t>(run_op(call)[0]), (std::vector<uint16_t>{7, 9}));
}

TEST(Squeeze, SymbolicDims) {
  OpCall call{.op_type = "Squeeze"};
  EXPECT_THROW(infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 1})}), NotStatic);
  const Tensor axes = Tensor::from<int64_t>({1}, {1});
  EXPECT_EQ(
      infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 1}), known(axes)})[0].shape.str(),
      "[N]");
}

TEST(Squeeze, Errors) {
  EXPECT_THROW(run_axes("Squeeze", {1, 3}, std::vector<int64_t>{1}), Error);      // size 3
  EXPECT_THROW(run_axes("Squeeze", {1, 3}, std::vector<int64_t>{2}), Error);      // range
  EXPECT_THROW(run_axes("Squeeze", {1, 1}, std::vector<int64_t>{0, -2}), Error);  // repeat
}

TEST(Unsqueeze, Axes) {
  EXPECT_EQ(run_axes("Unsqueeze", {3, 4}, std::vector<int64_t>{0, 3}),
            (std::vector<int64_t>{1, 3, 4, 1}));
  EXPECT_EQ(run_axes("Unsqueeze", {3, 4}, std::vector<int64_t>{-1, 1}, 11),
            (std::vector<int64_t>{3, 1, 4, 1}));
  EXPECT_EQ(run_axes("Unsqueeze", {}, std::vector<int64_t>{0}), (std::vector<int64_t>{1}));
}

TEST(Unsqueeze, Errors) {
  EXPECT_THROW(run_axes("Unsqueeze", {3}, std::vector<int64_t>{2}), Error);
  EXPECT_THROW(run_axes("Unsqueeze", {3}, std::vector<int64_t>{0, 0}), Error);
  EXPECT_THROW(run_axes("Unsqueeze", {3}, std::nullopt, 11), Error);
  EXPECT_THROW(run_axes("Unsqueeze", {3}, std::nullopt, 13), Error);
}

}  // namespace
}  // namespace strata::test
