#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall constant(std::string name, ir::Attribute value) {
  OpCall call;
  call.op_type = "Constant";
  call.attributes[name] = std::move(value);
  return call;
}

TEST(Constant, TensorValue) {
  std::vector<Tensor> out =
      run_op(constant("value", attr_tensor(Tensor::from<int32_t>({2, 2}, {1, 2, 3, 4}))));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{1, 2, 3, 4}));
}

TEST(Constant, ScalarAndListAttributes) {
  std::vector<Tensor> f = run_op(constant("value_float", attr_float(2.5f)));
  EXPECT_EQ(f[0].rank(), 0);
  expect_near(f[0], {2.5f});
  std::vector<Tensor> fs = run_op(constant("value_floats", attr_floats({1, 2})));
  expect_near(fs[0], {1, 2});
  std::vector<Tensor> i = run_op(constant("value_int", attr_int(-7)));
  EXPECT_EQ(i[0].dtype(), DType::kI64);
  EXPECT_EQ(values_of<int64_t>(i[0]), (std::vector<int64_t>{-7}));
  std::vector<Tensor> is = run_op(constant("value_ints", attr_ints({3, 4, 5})));
  EXPECT_EQ(values_of<int64_t>(is[0]), (std::vector<int64_t>{3, 4, 5}));
}

TEST(Constant, EmptyList) {
  std::vector<Tensor> out = run_op(constant("value_ints", attr_ints({})));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0}));
}

TEST(Constant, Errors) {
  OpCall none;
  none.op_type = "Constant";
  EXPECT_THROW(run_op(none), Error);
  OpCall two = constant("value_int", attr_int(1));
  two.attributes["value_float"] = attr_float(1);
  EXPECT_THROW(run_op(two), Error);
  EXPECT_THROW(run_op(constant("value_string", attr_string("text"))), Error);
  EXPECT_THROW(run_op(constant("sparse_value", ir::Attribute{})), Error);
  EXPECT_THROW(run_op(constant("value_float", attr_int(1))), Error);  // wrong attribute kind
}

}  // namespace
}  // namespace strata::test
