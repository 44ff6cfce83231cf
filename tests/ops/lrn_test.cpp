#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall lrn(int64_t size) {
  OpCall call;
  call.op_type = "LRN";
  call.attributes["size"] = attr_int(size);
  call.attributes["alpha"] = attr_float(0.1f);
  call.attributes["beta"] = attr_float(0.5f);
  call.inputs = {Tensor::from<float>({1, 3, 2}, {1, 2, 3, 4, 5, 6})};
  return call;
}

TEST(LRN, OddWindowIsCentred) {
  expect_near(run_op(lrn(3))[0],
              {0.8660254f, 1.5491933f, 2.0380987f, 2.3624977f, 3.4232660f, 3.6291503f});
}

TEST(LRN, EvenWindowLeansForward) {
  expect_near(run_op(lrn(2))[0],
              {0.8164966f, 1.4142136f, 1.8257419f, 2.1081851f, 3.3333333f, 3.5856858f});
}

TEST(LRN, DefaultsAndDouble) {
  OpCall call;
  call.op_type = "LRN";
  call.attributes["size"] = attr_int(1);
  call.inputs = {Tensor::from<double>({1, 1, 1}, {2})};
  std::vector<Tensor> out = run_op(call);  // bias 1, alpha 1e-4, beta 0.75
  EXPECT_NEAR(out[0].data<double>()[0], 2 / std::pow(1 + 1e-4 * 4, 0.75), 1e-7);
}

TEST(LRN, Errors) {
  OpCall call = lrn(3);
  call.attributes.erase("size");
  EXPECT_THROW(run_op(call), Error);
  EXPECT_THROW(run_op(lrn(0)), Error);
  call = lrn(3);
  call.inputs = {Tensor::zeros(DType::kI32, {1, 3, 2})};
  EXPECT_THROW(run_op(call), Error);
}

}  // namespace
}  // namespace strata::test
