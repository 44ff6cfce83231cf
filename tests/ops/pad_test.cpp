#include "ops/infer_util.h"

namespace strata::test {
namespace {

const Tensor kPadInput = Tensor::from<int32_t>({2, 3}, {0, 1, 2, 3, 4, 5});

// Pads kPadInput (2x3) with pads given as an input (opset 19).
std::vector<int32_t> padded(const std::string& mode, std::vector<int64_t> pads) {
  OpCall call{.op_type = "Pad", .opset = 19, .attributes = {{"mode", attr_string(mode)}}};
  call.inputs = {kPadInput, int64s(pads)};
  return values_of<int32_t>(run_op(call)[0]);
}

TEST(Pad, Modes) {
  // numpy.pad(a, ((1, 0), (2, 1)), mode) for a = arange(6).reshape(2, 3)
  EXPECT_EQ(padded("reflect", {1, 2, 0, 1}),
            (std::vector<int32_t>{5, 4, 3, 4, 5, 4, 2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4}));
  EXPECT_EQ(padded("edge", {1, 2, 0, 1}),
            (std::vector<int32_t>{0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5}));
  EXPECT_EQ(padded("wrap", {1, 2, 0, 1}),
            (std::vector<int32_t>{4, 5, 3, 4, 5, 3, 1, 2, 0, 1, 2, 0, 4, 5, 3, 4, 5, 3}));
  EXPECT_EQ(padded("constant", {0, 1, 1, 0}),
            (std::vector<int32_t>{0, 0, 1, 2, 0, 3, 4, 5, 0, 0, 0, 0}));
}

TEST(Pad, NegativePadsCrop) {
  EXPECT_EQ(padded("constant", {0, -1, 0, 1}), (std::vector<int32_t>{1, 2, 0, 4, 5, 0}));
  // Crop first, then reflect the cropped [[1, 2], [4, 5]].
  EXPECT_EQ(padded("reflect", {0, -1, 0, 2}), (std::vector<int32_t>{1, 2, 1, 2, 4, 5, 4, 5}));
}

TEST(Pad, ConstantValueAndAxesInputs) {
  OpCall call{.op_type = "Pad", .opset = 18};
  call.inputs = {Tensor::from<float>({2, 2}, {1, 2, 3, 4}), int64s({1, 0}),
                 Tensor::from<float>({}, {9}), int64s({-1})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {9, 1, 2, 9, 3, 4});
}

TEST(Pad, AttributesBeforeOpset11) {
  OpCall call{.op_type = "Pad",
              .opset = 7,
              .attributes = {{"pads", attr_ints({1, 1})}, {"value", attr_float(2.5f)}}};
  call.inputs = {Tensor::from<float>({1}, {1})};
  expect_near(run_op(call)[0], {2.5f, 1, 2.5f});
}

TEST(Pad, SymbolicDimWithoutPadsStays) {
  OpCall call{.op_type = "Pad"};
  std::vector<ops::Meta> out =
      infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3}), known(int64s({0, 1, 0, 1}))});
  EXPECT_EQ(out[0].shape.str(), "[N,5]");
}

TEST(Pad, Errors) {
  EXPECT_THROW(padded("constant", {1, 1}), Error);         // wrong length
  EXPECT_THROW(padded("constant", {-3, 0, 0, 0}), Error);  // crops more than the axis
  EXPECT_THROW(padded("mirror", {0, 0, 0, 0}), Error);     // unknown mode
  EXPECT_THROW(padded("reflect", {0, -3, 0, 1}), Error);   // reflect an empty axis
  OpCall old_wrap{.op_type = "Pad", .opset = 18, .attributes = {{"mode", attr_string("wrap")}}};
  old_wrap.inputs = {kPadInput, int64s({0, 0, 0, 0})};
  EXPECT_THROW(run_op(old_wrap), Error);
}

}  // namespace
}  // namespace strata::test
