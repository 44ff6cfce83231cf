// strata's ScatterElements kernel (src/kernels/cpu/scatter_elements.cpp) against the reference
// kernel: random ranks and axes (negative too), indices smaller than data off the axis, negative
// indices, targets written twice (the last write wins in both), one and two threads; an index out
// of range fails naming it; reductions stay with the reference.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

ir::Graph scatter_graph(const std::vector<int64_t>& data, const std::vector<int64_t>& indices,
                        int64_t axis, const std::string& reduction) {
  GraphBuilder g(18);
  g.input("data", data);
  g.input("indices", indices, DType::kI64);
  g.input("updates", indices);
  ir::Node& n = g.node("ScatterElements", {"data", "indices", "updates"}, {"y"});
  n.attributes["axis"] = attr_int(axis);
  n.attributes["reduction"] = attr_string(reduction);
  g.output("y");
  return g.build();
}

TEST(ScatterElementsKernel, RandomShapesAndAxesMatchTheReference) {
  std::mt19937 rng(131);
  for (int i = 0; i < 24; ++i) {
    const int64_t rank = random_int(rng, 1, 4);
    std::vector<int64_t> data, indices;
    for (int64_t d = 0; d < rank; ++d) {
      data.push_back(random_int(rng, 1, 9));
      indices.push_back(random_int(rng, 1, data.back()));
    }
    const int64_t axis = random_int(rng, -rank, rank - 1);
    const int64_t a = axis < 0 ? axis + rank : axis;
    indices[size_t(a)] = random_int(rng, 1, 12);  // may exceed data: targets written twice
    Tensor index = Tensor::zeros(DType::kI64, indices);
    for (int64_t k = 0; k < index.numel(); ++k)
      index.data<int64_t>()[k] = random_int(rng, -data[size_t(a)], data[size_t(a)] - 1);
    const int threads = 1 + i % 2;
    SCOPED_TRACE(testing::Message() << "data " << Shape::of(data).str() << " indices "
                                    << Shape::of(indices).str() << " axis " << axis);
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        scatter_graph(data, indices, axis, "none"),
        {random_tensor(rng, data), index, random_tensor(rng, indices)},
        kernels::LayoutPolicy::kAuto, 0, threads);
    EXPECT_EQ(steps[0].kernel, "strata:scatter_elements") << steps[0].reason;
  }
}

// As MultiScaleRoIAlign exports it: along axis 0, rows of more inner positions than one work
// item takes (1,260 here: two blocks), indices smaller than data off the axis, rows repeated.
TEST(ScatterElementsKernel, RowsSpanningSeveralWorkItemsMatchTheReference) {
  std::mt19937 rng(7);
  const std::vector<int64_t> data = {20, 3, 7, 70}, indices = {15, 3, 6, 70};
  Tensor index = Tensor::zeros(DType::kI64, indices);
  const int64_t inner = 3 * 6 * 70;
  for (int64_t row = 0; row < 15; ++row) {
    const int64_t target = random_int(rng, 0, 9);  // 15 rows into 10: some written twice
    for (int64_t k = 0; k < inner; ++k) index.data<int64_t>()[row * inner + k] = target;
  }
  for (int threads : {1, 2}) {
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        scatter_graph(data, indices, 0, "none"),
        {random_tensor(rng, data), index, random_tensor(rng, indices)},
        kernels::LayoutPolicy::kAuto, 0, threads);
    EXPECT_EQ(steps[0].kernel, "strata:scatter_elements") << steps[0].reason;
  }
}

TEST(ScatterElementsKernel, IndexOutOfRangeFailsNamingIt) {
  std::mt19937 rng(132);
  Tensor index = Tensor::from<int64_t>({2, 2}, {0, 1, 5, 0});
  try {
    run_session(scatter_graph({3, 2}, {2, 2}, 0, "none"),
                {random_tensor(rng, {3, 2}), index, random_tensor(rng, {2, 2})}, {});
    FAIL() << "expected a failure";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("5"), std::string::npos) << e.what();
  }
}

TEST(ScatterElementsKernel, ReductionsStayWithTheReference) {
  std::mt19937 rng(133);
  Tensor index = Tensor::from<int64_t>({2, 2}, {0, 1, 2, 0});
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      scatter_graph({3, 2}, {2, 2}, 0, "add"),
      {random_tensor(rng, {3, 2}), index, random_tensor(rng, {2, 2})});
  EXPECT_EQ(steps[0].kernel, "reference");
  EXPECT_NE(steps[0].reason.find("reduction"), std::string::npos) << steps[0].reason;
}

}  // namespace
}  // namespace strata::test
