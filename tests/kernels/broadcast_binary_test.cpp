// strata's broadcast kernel for Add, Sub, Mul and Div (src/kernels/cpu/broadcast_binary.cpp)
// against the reference kernels: Swin's window mask (a middle axis), both operands broadcasting,
// leading axes missing, one value, rows of one, every op, one and two threads; and that oneDNN's
// reference implementation never runs them.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"

namespace strata::test {
namespace {

struct Case {
  const char* op;
  std::vector<int64_t> a, b;
};

void expect_broadcast_kernel_matches_reference(const Case& c, std::mt19937& rng, int threads) {
  SCOPED_TRACE(testing::Message() << c.op << " " << Shape::of(c.a).str() << " "
                                  << Shape::of(c.b).str() << " threads " << threads);
  GraphBuilder g;
  g.input("a", c.a);
  g.input("b", c.b);
  g.node(c.op, {"a", "b"}, {"y"});
  g.output("y");
  Tensor b = random_tensor(rng, c.b);
  for (int64_t k = 0; k < b.numel(); ++k)  // keep divisors away from zero
    b.data<float>()[k] += b.data<float>()[k] < 0 ? -0.5f : 0.5f;
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, c.a), b}, kernels::LayoutPolicy::kAuto, 1e-6, threads);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kernel.find(":ref"), std::string::npos) << steps[0].kernel;
}

TEST(BroadcastBinary, TakesWhatOneDnnRunsOnlyOnItsReference) {
  std::mt19937 rng(71);
  GraphBuilder g;
  g.input("scores", {1, 4, 3, 7, 7});
  g.input("mask", {1, 4, 1, 7, 7});
  g.node("Add", {"scores", "mask"}, {"y"});
  g.output("y");
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {1, 4, 3, 7, 7}), random_tensor(rng, {1, 4, 1, 7, 7})});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kernel, "cpu:broadcast_binary");
  EXPECT_NE(steps[0].reason.find("onednn_binary: oneDNN offers only"), std::string::npos)
      << steps[0].reason;
}

TEST(BroadcastBinary, EveryOpAndBroadcastMatchesTheReference) {
  std::mt19937 rng(72);
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{2, 64, 3, 49, 49}, {2, 64, 1, 49, 49}},  // a middle axis (Swin), past 2^14 values
      {{3, 1, 5}, {1, 4, 1}},                    // both operands broadcast
      {{1, 3}, {2, 3}},                          // the first operand broadcasts
      {{6, 1, 33}, {5, 1}},                      // a missing leading axis, rows of one value
      {{4, 5, 6}, {}},                           // one value
      {{7, 1}, {7, 9}},                          // the first operand's row is one value
      {{2, 3, 4, 5}, {2, 1, 4, 1}},              // alternating axes
      {{2, 0, 3}, {1, 1, 3}},                    // empty
      {{3, 0}, {1, 1}},                          // empty rows
  };
  for (const char* op : {"Add", "Sub", "Mul", "Div"})
    for (const auto& [a, b] : shapes)
      for (int threads : {1, 2})
        expect_broadcast_kernel_matches_reference({op, a, b}, rng, threads);
}

}  // namespace
}  // namespace strata::test
