#include "ops/op_test_util.h"

namespace strata::test {
namespace {

OpCall gather(Tensor data, Tensor indices, int64_t axis) {
  OpCall call;
  call.op_type = "Gather";
  call.attributes["axis"] = attr_int(axis);
  call.inputs = {std::move(data), std::move(indices)};
  return call;
}

TEST(Gather, PicksRowsAlongAxis0) {
  std::vector<Tensor> out = run_op(gather(Tensor::from<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                                          Tensor::from<int64_t>({2}, {2, 0}), 0));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {5, 6, 1, 2});
}

TEST(Gather, NegativeAxisAndIndicesWithInt32Indices) {
  std::vector<Tensor> out = run_op(gather(Tensor::from<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                          Tensor::from<int32_t>({2}, {-1, 0}), -1));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{3, 1, 6, 4}));
}

TEST(Gather, IndicesShapeReplacesTheAxis) {
  std::vector<Tensor> out = run_op(gather(Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                                          Tensor::from<int64_t>({2, 2}, {0, 2, 1, 1}), 1));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2, 2}));
  expect_near(out[0], {1, 3, 2, 2, 4, 6, 5, 5});
}

TEST(Gather, ScalarIndexDropsTheAxis) {
  std::vector<Tensor> out =
      run_op(gather(Tensor::from<uint8_t>({3}, {7, 8, 9}), Tensor::from<int64_t>({}, {1}), 0));
  EXPECT_EQ(out[0].rank(), 0);
  EXPECT_EQ(values_of<uint8_t>(out[0]), (std::vector<uint8_t>{8}));
}

TEST(Gather, BoolAndFloat16AreCopiedByElement) {
  std::vector<Tensor> b = run_op(
      gather(Tensor::from<bool>({3}, {true, false, true}), Tensor::from<int64_t>({2}, {1, 2}), 0));
  EXPECT_EQ(values_of<bool>(b[0]), (std::vector<bool>{false, true}));
  std::vector<Tensor> h = run_op(
      gather(Tensor::from<f16>({2}, {f16(1.5f), f16(-2.0f)}), Tensor::from<int64_t>({1}, {1}), 0));
  EXPECT_EQ(float(h[0].data<f16>()[0]), -2.0f);
}

TEST(Gather, EmptyIndicesGiveAnEmptyOutput) {
  std::vector<Tensor> out =
      run_op(gather(Tensor::from<float>({2, 2}, {1, 2, 3, 4}), Tensor::zeros(DType::kI64, {0}), 0));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{0, 2}));
}

TEST(Gather, OutOfRangeIndexFailsNamingIndexAndAxis) {
  try {
    run_op(gather(Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                  Tensor::from<int64_t>({2}, {0, 3}), 1));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 3 is out of range for axis 1"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(
      run_op(gather(Tensor::from<float>({2}, {1, 2}), Tensor::from<int64_t>({1}, {-3}), 0)), Error);
  // An index is checked even when the output is empty.
  EXPECT_THROW(
      run_op(gather(Tensor::zeros(DType::kF32, {2, 0}), Tensor::from<int64_t>({1}, {5}), 0)),
      Error);
}

TEST(Gather, RejectsBadIndicesDtypeAxisAndScalarData) {
  EXPECT_THROW(run_op(gather(Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({1}, {0}), 0)),
               Error);
  EXPECT_THROW(run_op(gather(Tensor::from<float>({2}, {1, 2}), Tensor::from<int64_t>({1}, {0}), 1)),
               Error);
  EXPECT_THROW(run_op(gather(Tensor::from<float>({}, {1}), Tensor::from<int64_t>({1}, {0}), 0)),
               Error);
}

}  // namespace
}  // namespace strata::test
