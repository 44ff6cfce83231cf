// FlexAttention (src/ops/flex_attention.cpp, domain ai.onnx.preview): hand-worked results for the
// default and given scales, grouped-query heads, score_mod and prob_mod subgraphs (run by the
// session), the cost rule, and the errors for inputs and subgraphs that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/kernel_test_util.h"
#include "ops/internal_ops.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

constexpr const char* kPreview = "ai.onnx.preview";

// A model Y = FlexAttention(Q, K, V) for inputs of these shapes; `node` may be given attributes
// before run() or load().
struct FlexModel {
  ModelBuilder m{17};
  onnx::NodeProto* node = nullptr;
  FlexModel(std::vector<DimSpec> q, std::vector<DimSpec> k, std::vector<DimSpec> v,
            DType dtype = DType::kF32) {
    auto* import = m.proto().add_opset_import();
    import->set_domain(kPreview);
    import->set_version(1);
    m.add_input("Q", dtype, q);
    m.add_input("K", dtype, k);
    m.add_input("V", dtype, v);
    node = &m.add_node("FlexAttention", {"Q", "K", "V"}, {"Y"}, "flex");
    node->set_domain(kPreview);
    m.add_output("Y");
  }
  runtime::Model load() const {
    TempDir dir;
    return runtime::load_model(m.save(dir.path("model.onnx")));
  }
  Tensor run(const std::vector<Tensor>& inputs) const {
    const runtime::Model model = load();
    return run_session(model.graph, inputs, {}).outputs[0];
  }
};

// A one-node subgraph `out = op(in, c)` with c a scalar float constant, for score_mod/prob_mod.
onnx::GraphProto one_op_body(const std::string& in, const std::string& op, float c) {
  ModelBuilder b;
  b.add_input(in, DType::kF32, {"B", "H", "L", "S"});
  b.add_initializer("c", Tensor::from<float>({}, {c}));
  b.add_node(op, {in, "c"}, {in + "_out"});
  b.add_output(in + "_out");
  return b.graph();
}

void expect_attention_values(const Tensor& t, const std::vector<double>& want,
                             double tolerance = 1e-6) {
  const std::vector<double> got = t.to_double();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

// Q = [1, 0] against keys [1, 0] and [0, 1] with values 1 and 3.
const Tensor kQ = Tensor::from<float>({1, 1, 1, 2}, {1, 0});
const Tensor kK = Tensor::from<float>({1, 1, 2, 2}, {1, 0, 0, 1});
const Tensor kV = Tensor::from<float>({1, 1, 2, 1}, {1, 3});

TEST(FlexAttention, DefaultScaleIsOneOverTheSquareRootOfTheHeadSize) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  // Scores [1/√2, 0]; probabilities e^(1/√2) : 1, normalised; Y = p₀·1 + p₁·3.
  const double p0 = std::exp(1 / std::sqrt(2.0)) / (std::exp(1 / std::sqrt(2.0)) + 1);
  expect_attention_values(f.run({kQ, kK, kV}), {p0 * 1 + (1 - p0) * 3});
}

TEST(FlexAttention, GivenScale) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  set_attr(*f.node, "scale", float(std::log(3.0)));
  // Scores [ln 3, 0]: probabilities [3/4, 1/4]; Y = 3/4 + 3/4.
  expect_attention_values(f.run({kQ, kK, kV}), {1.5});
}

// Two query heads share one K/V head.
TEST(FlexAttention, GroupedQueryHeadsShareKeysAndValues) {
  FlexModel f({1, 2, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  set_attr(*f.node, "scale", float(std::log(3.0)));
  // Head 0 as above (1.5); head 1 = [0, 1]: probabilities [1/4, 3/4], Y = 1/4 + 9/4.
  expect_attention_values(f.run({Tensor::from<float>({1, 2, 1, 2}, {1, 0, 0, 1}), kK, kV}),
                          {1.5, 2.5});
}

TEST(FlexAttention, DoubleInputsGiveDouble) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1}, DType::kF64);
  set_attr(*f.node, "scale", float(std::log(3.0)));
  const Tensor y = f.run({Tensor::from<double>({1, 1, 1, 2}, {1, 0}),
                          Tensor::from<double>({1, 1, 2, 2}, {1, 0, 0, 1}),
                          Tensor::from<double>({1, 1, 2, 1}, {1, 3})});
  EXPECT_EQ(y.dtype(), DType::kF64);
  expect_attention_values(y, {1.5}, 1e-6);  // the scale attribute is a float: ln 3 rounded
}

// score_mod is given the whole scaled score tensor: multiplied by 0, the softmax is uniform.
TEST(FlexAttention, ScoreModRewritesTheScores) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  set_attr(*f.node, "scale", float(std::log(3.0)));
  set_attr(*f.node, "score_mod", one_op_body("scores", "Mul", 0.0f));
  // Scores [ln 3, 0] × 0: probabilities [1/2, 1/2]; Y = 2.
  expect_attention_values(f.run({kQ, kK, kV}), {2.0});
}

TEST(FlexAttention, ProbModRewritesTheProbabilities) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  set_attr(*f.node, "scale", float(std::log(3.0)));
  set_attr(*f.node, "prob_mod", one_op_body("probs", "Mul", 2.0f));
  // Probabilities [3/4, 1/4] doubled: Y = 2 × 1.5.
  expect_attention_values(f.run({kQ, kK, kV}), {3.0});
}

// A score_mod reading a value of the enclosing graph by name (a capture): a bias input added to
// every score.
TEST(FlexAttention, ScoreModReadsAnOuterValue) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  f.m.add_input("bias", DType::kF32, {2});
  ModelBuilder b;
  b.add_input("scores", DType::kF32, {"B", "H", "L", "S"});
  b.add_node("Add", {"scores", "bias"}, {"scores_out"});
  b.add_output("scores_out");
  set_attr(*f.node, "score_mod", b.graph());
  // Q = [0, 0]: scores [0, 0] plus [ln 3, 0]: probabilities [3/4, 1/4]; Y = 1.5.
  const float ln3 = float(std::log(3.0));
  expect_attention_values(f.run({Tensor::from<float>({1, 1, 1, 2}, {0, 0}), kK, kV,
                                 Tensor::from<float>({2}, {ln3, 0})}),
                          {1.5});
}

// 2·B·Hq·L·S·(D + Dv) FLOPs for the products and 5 per score for the softmax.
TEST(FlexAttention, CostCountsBothProductsAndTheSoftmax) {
  ir::Graph graph;
  ir::Node node;
  node.op_type = "FlexAttention";
  node.domain = kPreview;
  node.inputs = {0, 1, 2};
  node.outputs = {3};
  const std::unique_ptr<ops::Op> op =
      ops::find_op_in_domain(kPreview, "FlexAttention")(ops::NodeInfo(graph, node, 17));
  ops::Meta q, k, v;
  q.dtype = k.dtype = v.dtype = DType::kF32;
  q.shape = Shape{2, 4, 3, 8};
  k.shape = Shape{2, 2, 5, 8};
  v.shape = Shape{2, 2, 5, 6};
  const std::vector<const ops::Meta*> in = {&q, &k, &v};
  std::vector<ops::Meta> out(1);
  ops::InferContext infer(in, out);
  op->infer(infer);
  EXPECT_EQ(out[0].shape.str(), "[2,4,3,6]");
  const std::optional<ops::Cost> c = op->cost(ops::CostContext(in, out));
  ASSERT_TRUE(c);
  const double scores = 2 * 4 * 3 * 5;
  EXPECT_EQ(c->macs, scores * (8 + 6));
  EXPECT_EQ(c->flops, 2 * scores * (8 + 6) + 5 * scores);
  EXPECT_EQ(c->bytes_written, 2 * 4 * 3 * 6 * 4);
}

TEST(FlexAttention, InputsThatDoNotFitAreRefused) {
  expect_error(
      [] {
        FlexModel({1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1}).load();
      },
      {"FlexAttention node 'flex'", "input Q", "rank 4"});
  expect_error(
      [] {
        FlexModel({1, 3, 1, 2}, {1, 2, 2, 2}, {1, 2, 2, 1}).load();
      },
      {"Q has 3 heads, not a multiple of K's and V's 2"});
  expect_error(
      [] {
        FlexModel({1, 1, 1, 4}, {1, 1, 2, 2}, {1, 1, 2, 1}).load();
      },
      {"Q's head size is 4 but K's is 2"});
}

TEST(FlexAttention, ASubgraphOfTwoInputsIsRefused) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  ModelBuilder b;
  b.add_input("scores", DType::kF32, {1, 1, 1, 2});
  b.add_input("more", DType::kF32, {1, 1, 1, 2});
  b.add_node("Add", {"scores", "more"}, {"out"});
  b.add_output("out");
  set_attr(*f.node, "score_mod", b.graph());
  expect_error([&] { f.load(); }, {"its score_mod has 2 inputs and 1 outputs"});
}

// A score_mod that changes the scores' shape is stopped while running, naming the shapes.
TEST(FlexAttention, AScoreModChangingTheShapeIsRefused) {
  FlexModel f({1, 1, 1, 2}, {1, 1, 2, 2}, {1, 1, 2, 1});
  ModelBuilder b;
  b.add_input("scores", DType::kF32, {"B", "H", "L", "S"});
  b.add_int64_initializer("axes", {1}, {3});
  b.add_node("ReduceSum", {"scores", "axes"}, {"out"});
  b.add_output("out");
  set_attr(*f.node, "score_mod", b.graph());
  expect_error([&] { f.run({kQ, kK, kV}); }, {"its score_mod gave float32[1,1,1,1]", "[1,1,1,2]"});
}

}  // namespace
}  // namespace strata::test
