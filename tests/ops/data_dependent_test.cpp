// NonZero, Compress, Unique: exact shapes once the deciding value is known, a symbolic dim before.
#include <cmath>
#include <limits>

#include "ops/infer_util.h"
#include "ops/op_test_util.h"
#include "testutil/expect_error.h"

namespace strata::test {
namespace {

OpCall call_of(const char* op_type, std::vector<Tensor> inputs, size_t outputs = 1) {
  OpCall call = op_call(op_type, 17);
  call.inputs = std::move(inputs);
  call.num_outputs = outputs;
  return call;
}

TEST(NonZero, CoordinatesInRowMajorOrder) {
  const std::vector<Tensor> out =
      run_op(call_of("NonZero", {Tensor::from<float>({2, 3}, {0, 1, 0, 2, 0, -3})}));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 1, 1, 1, 0, 2}));
}

// Rank 3 (coordinates from flat positions), NaN counted, negative zero not, and a bool mask.
TEST(NonZero, RankThreeNaNAndNegativeZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Tensor> out =
      run_op(call_of("NonZero", {Tensor::from<float>({2, 2, 2}, {0, -0.0f, nan, 0, 0, 0, 0, 5})}));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 1, 1, 1, 0, 1}));
  EXPECT_EQ(values_of<int64_t>(run_op(
                call_of("NonZero", {Tensor::from<bool>({4}, {false, true, true, false})}))[0]),
            (std::vector<int64_t>{1, 2}));
}

TEST(NonZero, NoneAndScalar) {
  EXPECT_EQ(run_op(call_of("NonZero", {Tensor::from<int32_t>({3}, {0, 0, 0})}))[0].shape(),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(run_op(call_of("NonZero", {Tensor::from<bool>({}, {true})}))[0].shape(),
            (std::vector<int64_t>{1, 1}));
}

TEST(NonZero, UnknownValueGivesASymbolicCount) {
  const std::vector<ops::Meta> out =
      infer_only(call_of("NonZero", {}), {meta(DType::kF32, Shape{2, Dim::symbol("N")})});
  EXPECT_EQ(out[0].shape.rank(), 2);
  EXPECT_EQ(out[0].shape[0], Dim(2));
  EXPECT_FALSE(out[0].shape[1].is_static());
}

TEST(Compress, AlongAnAxisAndFlattened) {
  const Tensor x = Tensor::from<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  OpCall axis0 = call_of("Compress", {x, Tensor::from<bool>({3}, {false, true, true})});
  axis0.attributes["axis"] = attr_int(0);
  std::vector<Tensor> out = run_op(axis0);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {3, 4, 5, 6});
  OpCall axis1 = call_of("Compress", {x, Tensor::from<bool>({1}, {true})});
  axis1.attributes["axis"] = attr_int(-1);
  expect_near(run_op(axis1)[0], {1, 3, 5});
  // No axis: the flattened input; a condition shorter than it drops the rest.
  out = run_op(call_of("Compress", {x, Tensor::from<bool>({4}, {true, false, false, true})}));
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2}));
  expect_near(out[0], {1, 4});
}

TEST(Compress, Errors) {
  const Tensor x = Tensor::from<float>({2}, {1, 2});
  expect_error(
      [&] {
        run_op(call_of("Compress", {x, Tensor::from<bool>({3}, {true, false, true})}));
      },
      {"condition", "3 entries, more than the 2 elements"});
  expect_error(
      [&] {
        run_op(call_of("Compress", {x, Tensor::from<int64_t>({2}, {1, 0})}));
      },
      {"condition", "must be bool"});
  OpCall bad_axis = call_of("Compress", {x, Tensor::from<bool>({1}, {true})});
  bad_axis.attributes["axis"] = attr_int(1);
  EXPECT_THROW(run_op(bad_axis), Error);
}

TEST(Unique, SortedWithIndicesInverseAndCounts) {
  const std::vector<Tensor> out =
      run_op(call_of("Unique", {Tensor::from<int64_t>({6}, {2, 1, 1, 3, 4, 3})}, 4));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 0, 3, 4}));
  EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(values_of<int64_t>(out[3]), (std::vector<int64_t>{2, 1, 2, 1}));
}

TEST(Unique, UnsortedKeepsFirstOccurrenceOrderAndNaNsAreOneValue) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  OpCall call = call_of("Unique", {Tensor::from<float>({5}, {3, nan, 1, 3, nan})}, 4);
  call.attributes["sorted"] = attr_int(0);
  const std::vector<Tensor> out = run_op(call);
  ASSERT_EQ(out[0].numel(), 3);
  EXPECT_EQ(out[0].data<float>()[0], 3);
  EXPECT_TRUE(std::isnan(out[0].data<float>()[1]));
  EXPECT_EQ(out[0].data<float>()[2], 1);
  EXPECT_EQ(values_of<int64_t>(out[3]), (std::vector<int64_t>{2, 2, 1}));
}

// A scalar has no axis to take slices along (found by fuzz_graph: its missing dim was read).
TEST(Unique, AxisOfAScalarIsRefused) {
  OpCall call = call_of("Unique", {Tensor::from<float>({}, {1})}, 4);
  call.attributes["axis"] = attr_int(0);
  try {
    run_op(call);
    FAIL() << "expected a failure";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is a scalar"), std::string::npos) << e.what();
  }
}

TEST(Unique, SlicesAlongAnAxis) {
  OpCall call = call_of("Unique", {Tensor::from<float>({3, 2}, {1, 0, 0, 1, 1, 0})}, 4);
  call.attributes["axis"] = attr_int(0);
  const std::vector<Tensor> out = run_op(call);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
  expect_near(out[0], {0, 1, 1, 0});
  EXPECT_EQ(values_of<int64_t>(out[2]), (std::vector<int64_t>{1, 0, 1}));
}

}  // namespace
}  // namespace strata::test
