#include "ops/infer_util.h"

namespace strata::test {
namespace {

TEST(Shape, AllDims) {
  OpCall call{.op_type = "Shape"};
  call.inputs = {Tensor::zeros(DType::kF32, {2, 3, 4})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].dtype(), DType::kI64);
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{2, 3, 4}));
}

TEST(Shape, StartEndOpset15) {
  struct Case {
    int64_t start, end;
    std::vector<int64_t> expected;
  };
  for (const Case& c : std::vector<Case>{
           {1, 100, {3, 4}}, {-1, 100, {4}}, {0, -1, {2, 3}}, {-10, 1, {2}}, {2, 1, {}}}) {
    OpCall call{.op_type = "Shape",
                .opset = 15,
                .attributes = {{"start", attr_int(c.start)}, {"end", attr_int(c.end)}}};
    call.inputs = {Tensor::zeros(DType::kU8, {2, 3, 4})};
    EXPECT_EQ(values_of<int64_t>(run_op(call)[0]), c.expected) << c.start << ":" << c.end;
  }
}

TEST(Shape, FoldsKnownDimsOnly) {
  OpCall call{.op_type = "Shape", .attributes = {{"start", attr_int(1)}}};
  std::vector<ops::Meta> out = infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3, 4})});
  ASSERT_TRUE(out[0].value);
  EXPECT_EQ(out[0].value->to_int64(), (std::vector<int64_t>{3, 4}));
  call.attributes.clear();
  out = infer_only(call, {meta(DType::kF32, {Dim::symbol("N"), 3, 4})});
  EXPECT_FALSE(out[0].value);
  EXPECT_EQ(out[0].shape.str(), "[3]");
}

TEST(Size, CountsElementsAndFolds) {
  OpCall call{.op_type = "Size"};
  call.inputs = {Tensor::zeros(DType::kBool, {2, 3})};
  std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].rank(), 0);
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{6}));
  EXPECT_TRUE(infer_only(call, {meta(DType::kF32, {2, 0})})[0].value);
  EXPECT_FALSE(infer_only(call, {meta(DType::kF32, {Dim::symbol("N")})})[0].value);
}

}  // namespace
}  // namespace strata::test
