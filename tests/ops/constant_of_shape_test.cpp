#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall constant_of_shape(Tensor shape, const Tensor* value = nullptr) {
  OpCall call;
  call.op_type = "ConstantOfShape";
  if (value) call.attributes["value"] = attr_tensor(*value);
  call.inputs = {std::move(shape)};
  return call;
}

TEST(ConstantOfShape, DefaultsToFloatZero) {
  std::vector<Tensor> out = run_op(constant_of_shape(Tensor::from<int64_t>({2}, {2, 3})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  expect_near(out[0], {0, 0, 0, 0, 0, 0});
}

TEST(ConstantOfShape, ValueAttributeSetsDtypeAndFill) {
  const Tensor value = Tensor::from<int32_t>({1}, {7});
  std::vector<Tensor> out = run_op(constant_of_shape(Tensor::from<int64_t>({1}, {3}), &value));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{7, 7, 7}));
}

TEST(ConstantOfShape, EmptyShapeIsAScalarAndZeroDimIsEmpty) {
  const Tensor value = Tensor::from<float>({1}, {1.5f});
  std::vector<Tensor> scalar = run_op(constant_of_shape(Tensor::zeros(DType::kI64, {0}), &value));
  EXPECT_EQ(scalar[0].rank(), 0);
  expect_near(scalar[0], {1.5f});
  std::vector<Tensor> empty = run_op(constant_of_shape(Tensor::from<int64_t>({2}, {0, 4})));
  EXPECT_EQ(empty[0].numel(), 0);
}

TEST(ConstantOfShape, InferComputesSmallValuesOnly) {
  auto infer_value = [](int64_t n) {
    ops::Meta shape;
    shape.dtype = DType::kI64;
    shape.shape = Shape{1};
    shape.value = std::make_shared<const Tensor>(Tensor::from<int64_t>({1}, {n}));
    std::vector<const ops::Meta*> in = {&shape};
    std::vector<ops::Meta> out(1);
    ops::InferContext ctx(in, out);
    ir::Graph graph;
    ir::Node node;
    node.op_type = "ConstantOfShape";
    ops::find_op("ConstantOfShape")(ops::NodeInfo(graph, node, 17))->infer(ctx);
    EXPECT_EQ(out[0].shape, Shape{n});
    return out[0].value != nullptr;
  };
  EXPECT_TRUE(infer_value(1024));
  EXPECT_FALSE(infer_value(1025));
}

TEST(ConstantOfShape, Errors) {
  EXPECT_THROW(run_op(constant_of_shape(Tensor::from<int64_t>({2}, {2, -1}))), Error);
  EXPECT_THROW(run_op(constant_of_shape(Tensor::from<float>({1}, {2}))), Error);
  const Tensor two = Tensor::from<float>({2}, {1, 2});
  EXPECT_THROW(run_op(constant_of_shape(Tensor::from<int64_t>({1}, {2}), &two)), Error);
  // An absurd element count fails instead of allocating.
  EXPECT_THROW(run_op(constant_of_shape(Tensor::from<int64_t>({3}, {1 << 30, 1 << 30, 1 << 30}))),
               Error);
}

}  // namespace
}  // namespace strata::test
