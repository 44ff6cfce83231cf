// The meta evaluator: shapes and costs from the ops' rules, folding, and re-evaluating only what a
// change of input sizes reaches.
#include "analyzer/meta_eval.h"

#include <gtest/gtest.h>

#include "onnx/loader.h"
#include "testutil/onnx_builder.h"

namespace strata::analyzer {
namespace {

using test::ModelBuilder;

// y = relu(x) · W, plus a constant branch c = Shape(W) that does not depend on x.
ir::Graph model(const test::TempDir& dir) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 4});
  m.add_initializer("W", Tensor::zeros(DType::kF32, {4, 2}));
  m.add_node("Relu", {"x"}, {"r"}, "relu");
  m.add_node("MatMul", {"r", "W"}, {"y"}, "mm");
  m.add_node("Shape", {"W"}, {"c"}, "shape_of_weight");
  m.add_output("y");
  m.add_output("c");
  return onnx_import::load_model(m.save(dir.path("m.onnx"))).graph;
}

TEST(AnalyzerMetaEval, ShapesCostsAndFolding) {
  test::TempDir dir;
  const ir::Graph g = model(dir);
  const MetaEvaluator evaluator(g);
  EvalResult r;
  evaluator.evaluate({Shape{3, 4}}, r);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[1].state, NodeState::kKnown);
  EXPECT_EQ(r.metas[size_t(g.find_value("y"))].shape, (Shape{3, 2}));
  EXPECT_EQ(r.nodes[1].cost.macs, 3 * 4 * 2);
  EXPECT_TRUE(r.nodes[2].folded);  // every input is a constant
  EXPECT_FALSE(r.nodes[0].folded);
  ASSERT_TRUE(r.metas[size_t(g.find_value("c"))].value);
  EXPECT_EQ(r.metas[size_t(g.find_value("c"))].value->to_int64(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(r.reevaluated, 3u);
}

TEST(AnalyzerMetaEval, ReevaluatesOnlyWhatTheNewSizesReach) {
  test::TempDir dir;
  const ir::Graph g = model(dir);
  const MetaEvaluator evaluator(g);
  EvalResult r;
  evaluator.evaluate({Shape{3, 4}}, r);
  evaluator.evaluate({Shape{5, 4}}, r);
  EXPECT_EQ(r.reevaluated, 2u);  // relu and mm; the weight's Shape is unchanged
  EXPECT_EQ(r.metas[size_t(g.find_value("y"))].shape, (Shape{5, 2}));
  EXPECT_EQ(r.nodes[1].cost.macs, 5 * 4 * 2);
  EXPECT_TRUE(r.nodes[2].folded);
  evaluator.evaluate({Shape{5, 4}}, r);
  EXPECT_EQ(r.reevaluated, 0u);  // nothing changed
}

TEST(AnalyzerMetaEval, SymbolicShapesWithoutCosts) {
  test::TempDir dir;
  const ir::Graph g = model(dir);
  EvalResult r;
  MetaEvaluator(g).evaluate({Shape{Dim::symbol("N"), 4}}, r);
  EXPECT_EQ(r.metas[size_t(g.find_value("y"))].shape, (Shape{Dim::symbol("N"), 2}));
  EXPECT_FALSE(r.nodes[1].has_cost);  // cost rules need concrete shapes
}

}  // namespace
}  // namespace strata::analyzer
