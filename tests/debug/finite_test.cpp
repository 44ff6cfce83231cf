// find_non_finite: the first node whose output holds NaN or Inf, and whether its inputs did.
#include "debug/finite.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/model.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

// d = x / y; l = Log(d); out = l + 1.
ir::Graph divide_graph(const TempDir& dir, float constant = 1) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {3});
  m.add_input("y", DType::kF32, {3});
  m.add_initializer("k", Tensor::from<float>({}, {constant}));
  m.add_node("Div", {"x", "y"}, {"d"}, "div");
  m.add_node("Log", {"d"}, {"l"}, "log");
  m.add_node("Add", {"l", "k"}, {"out"}, "add");
  m.add_output("out", DType::kF32, {3});
  return runtime::load_model(m.save(dir.path("div.onnx"))).graph;
}

std::optional<debug::NonFinite> check(const ir::Graph& g, std::vector<float> x,
                                      std::vector<float> y) {
  const Tensor tx = Tensor::from<float>({3}, std::span<const float>(x));
  const Tensor ty = Tensor::from<float>({3}, std::span<const float>(y));
  runtime::Session session(g, {{DType::kF32, {3}}, {DType::kF32, {3}}}, {});
  auto found = debug::find_non_finite(session, {&tx, &ty});
  // The session runs normally afterwards (the check's hook is gone).
  session.run({&tx, &ty});
  return found;
}

TEST(FiniteCheck, AllFiniteFindsNothing) {
  TempDir dir;
  EXPECT_FALSE(check(divide_graph(dir), {1, 2, 3}, {1, 1, 1}));
}

TEST(FiniteCheck, StopsAtTheNodeThatMadeAnInf) {
  TempDir dir;
  const auto f = check(divide_graph(dir), {1, 2, 3}, {0, 1, 1});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->node, "div");
  EXPECT_EQ(f->op_type, "Div");
  EXPECT_EQ(f->value, "d");
  EXPECT_EQ(f->infs, 1);
  EXPECT_EQ(f->nans, 0);
  EXPECT_EQ(f->count, 3);
  EXPECT_TRUE(f->non_finite_inputs.empty());
  EXPECT_EQ(debug::describe(*f),
            "node 'div' (Div) wrote 0 NaN and 1 Inf among the 3 values of 'd'; its inputs were "
            "finite");
}

TEST(FiniteCheck, ANaNFromALaterNode) {
  TempDir dir;
  // d = -1, 2, 3: finite; Log(-1) is NaN.
  const auto f = check(divide_graph(dir), {-1, 2, 3}, {1, 1, 1});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->node, "log");
  EXPECT_EQ(f->nans, 1);
}

TEST(FiniteCheck, NamesNonFiniteInputs) {
  TempDir dir;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto f = check(divide_graph(dir), {nan, 2, 3}, {1, 1, 1});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->node, "div");
  ASSERT_EQ(f->non_finite_inputs.size(), 1u);
  EXPECT_EQ(f->non_finite_inputs[0], "'x' (1 NaN, 0 Inf)");
  EXPECT_NE(debug::describe(*f).find("its inputs were not finite: 'x' (1 NaN, 0 Inf)"),
            std::string::npos);
  // A constant weight holding Inf.
  const auto w =
      check(divide_graph(dir, std::numeric_limits<float>::infinity()), {1, 2, 3}, {1, 1, 1});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->node, "add");
  EXPECT_EQ(w->non_finite_inputs, std::vector<std::string>{"'k' (0 NaN, 1 Inf)"});
}

}  // namespace
}  // namespace strata::test
