// oneDNN matmul (src/kernels/onednn/matmul.cpp) against the MatMul, FusedMatMul and Gemm reference
// kernels, on random shapes from a fixed seed: odd sizes, batches with broadcasting, 1-D operands,
// constant and computed weights, Gemm's transposes, alpha and beta, fused addends and activations.
#include <gtest/gtest.h>

#include "kernels/kernel_test_util.h"
#include "ops/internal_ops.h"
#include "passes/optimize.h"

namespace strata::test {
namespace {

// One step, on an optimised oneDNN implementation (not one of its reference ones).
void expect_onednn(const std::vector<runtime::StepInfo>& steps) {
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].kernel.rfind("onednn:", 0), 0u) << steps[0].kernel << ": " << steps[0].reason;
  EXPECT_EQ(steps[0].kernel.find(":ref"), std::string::npos)
      << steps[0].kernel << ": " << steps[0].reason;
}

TEST(OnednnMatMul, RandomBatchedShapesMatchTheReferenceKernel) {
  std::mt19937 rng(5150);
  for (int i = 0; i < 30; ++i) {
    const int64_t m = random_int(rng, 1, 37), k = random_int(rng, 1, 70),
                  n = random_int(rng, 1, 45);
    std::vector<int64_t> batch;
    for (int64_t d = random_int(rng, 0, 2); d > 0; --d) batch.push_back(random_int(rng, 1, 4));
    std::vector<int64_t> a = batch, b = batch;
    a.insert(a.end(), {m, k});
    b.insert(b.end(), {k, n});
    if (!batch.empty() && random_int(rng, 0, 1)) b = {k, n};   // weights shared
    if (b.size() > 2 && random_int(rng, 0, 2) == 0) b[0] = 1;  // broadcast batch
    if (random_int(rng, 0, 9) == 0) a = {k};                   // 1-D A
    const bool constant_b = random_int(rng, 0, 1) == 1;
    SCOPED_TRACE(testing::Message() << "A " << Shape::of(a).str() << " B " << Shape::of(b).str()
                                    << (constant_b ? " constant" : ""));
    GraphBuilder g;
    g.input("a", a);
    std::vector<Tensor> inputs;
    inputs.push_back(random_tensor(rng, a));
    if (constant_b) {
      g.constant("b", random_tensor(rng, b));
    } else {
      g.input("b", b);
      inputs.push_back(random_tensor(rng, b));
    }
    g.node("MatMul", {"a", "b"}, {"y"});
    g.output("y");
    expect_onednn(expect_fast_matches_reference(g.build(), inputs));
  }
}

// Found by fuzz_graph (tests/data/fuzz-regressions/fuzz_graph/gemm-onednn-invalid-arguments.bin):
// an empty product went to oneDNN, which refused it with "invalid arguments" (exit 3). Empty
// operands stay with the reference kernel, which gives the empty result.
TEST(OnednnMatMul, EmptyOperandsStayWithTheReference) {
  struct Case {
    const char* op;
    std::vector<int64_t> a, b;
  };
  const Case cases[] = {{"Gemm", {0, 4}, {4, 3}},
                        {"Gemm", {2, 4}, {4, 0}},
                        {"Gemm", {2, 0}, {0, 3}},
                        {"MatMul", {5, 0, 4}, {4, 3}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << c.op << " " << Shape::of(c.a).str() << " x " << Shape::of(c.b).str());
    GraphBuilder g;
    g.input("a", c.a);
    g.input("b", c.b);
    g.node(c.op, {"a", "b"}, {"y"});
    g.output("y");
    std::mt19937 rng(61);
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
        g.build(), {random_tensor(rng, c.a), random_tensor(rng, c.b)});
    EXPECT_EQ(steps[0].kernel, "reference") << steps[0].reason;
    EXPECT_NE(steps[0].reason.find("nothing to compute"), std::string::npos) << steps[0].reason;
  }
}

TEST(OnednnMatMul, FusedScaleBiasResidualAndActivation) {
  std::mt19937 rng(99);
  static const char* const kActivations[] = {"", "Gelu", "Relu", "Sigmoid", "Tanh"};
  for (int i = 0; i < 12; ++i) {
    const int64_t batch = random_int(rng, 1, 3), m = random_int(rng, 1, 20),
                  k = random_int(rng, 1, 40), n = random_int(rng, 1, 33);
    const bool bias = random_int(rng, 0, 2) != 0, residual = random_int(rng, 0, 1) == 1;
    const float alpha = random_int(rng, 0, 1) ? 1.0f : 0.125f;
    const std::string activation = kActivations[i % 5];
    SCOPED_TRACE(testing::Message()
                 << batch << "x" << m << "x" << k << "x" << n << " alpha " << alpha
                 << (bias ? " bias" : "") << (residual ? " z" : "") << " '" << activation << "'");
    GraphBuilder g;
    g.input("a", {batch, m, k});
    g.constant("w", random_tensor(rng, {k, n}));
    std::vector<Tensor> inputs;
    inputs.push_back(random_tensor(rng, {batch, m, k}));
    if (bias) g.constant("c", random_tensor(rng, {n}));
    std::vector<std::string> in = {"a", "w", bias ? "c" : ""};
    if (residual) {
      g.input("z", {batch, m, n});
      inputs.push_back(random_tensor(rng, {batch, m, n}));
      in.push_back("z");
    }
    ir::Node& node = g.node("FusedMatMul", in, {"y"}, std::string(ops::kStrataDomain));
    node.attributes["alpha"] = attr_float(alpha);
    node.attributes["activation"] = attr_string(activation);
    g.output("y");
    expect_onednn(expect_fast_matches_reference(g.build(), inputs));
  }
}

// Constant weights of 128·k columns: where oneDNN keeps them row-major (its GEMM-based matmul, on
// CPUs without AVX-512) the packed copy's rows are padded against cache-set conflicts; either way
// the product is the reference's, batched weights, fused bias and activation included.
TEST(OnednnMatMul, WeightsOfManyColumnsMatchTheReferenceWhetherPaddedOrNot) {
  std::mt19937 rng(128);
  for (int i = 0; i < 6; ++i) {
    const int64_t batch = random_int(rng, 1, 3), m = random_int(rng, 1, 20),
                  k = random_int(rng, 16, 80), n = 128 * random_int(rng, 1, 3);
    const bool batched_weights = i % 3 == 2, fused = i % 2 == 1;
    SCOPED_TRACE(testing::Message()
                 << batch << "x" << m << "x" << k << "x" << n
                 << (batched_weights ? " batched weights" : "") << (fused ? " bias, Relu" : ""));
    GraphBuilder g;
    g.input("a", {batch, m, k});
    g.constant("w",
               batched_weights ? random_tensor(rng, {batch, k, n}) : random_tensor(rng, {k, n}));
    std::vector<Tensor> inputs;
    inputs.push_back(random_tensor(rng, {batch, m, k}));
    if (fused) {
      g.constant("c", random_tensor(rng, {n}));
      g.node("FusedMatMul", {"a", "w", "c"}, {"y"}, std::string(ops::kStrataDomain))
          .attributes["activation"] = attr_string("Relu");
    } else {
      g.node("MatMul", {"a", "w"}, {"y"});
    }
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
    expect_onednn(steps);
    // The padding is said in the step's reason, and only for oneDNN's row-major GEMM path.
    if (steps[0].reason.find("padded") != std::string::npos) {
      EXPECT_NE(steps[0].kernel.find("gemm"), std::string::npos) << steps[0].kernel;
    }
  }
}

TEST(OnednnMatMul, AttentionMaskAddendBroadcastsOverBatches) {
  std::mt19937 rng(12);
  GraphBuilder g;
  g.input("q", {2, 3, 7, 5});
  g.input("k", {2, 3, 5, 7});
  g.constant("mask", random_tensor(rng, {7, 7}));
  ir::Node& node =
      g.node("FusedMatMul", {"q", "k", "mask"}, {"y"}, std::string(ops::kStrataDomain));
  node.attributes["alpha"] = attr_float(0.5f);
  node.attributes["activation"] = attr_string("");
  g.output("y");
  expect_onednn(expect_fast_matches_reference(
      g.build(), {random_tensor(rng, {2, 3, 7, 5}), random_tensor(rng, {2, 3, 5, 7})}));
}

// oneDNN 2.6 has only its reference implementation for these fusions (addends broadcast over the
// batch dimensions); the kernel runs the product alone and the rest as a binary primitive.
TEST(OnednnMatMul, BroadcastAddendsAndActivationRunApartRatherThanOnTheReference) {
  std::mt19937 rng(31);
  struct Case {
    std::vector<int64_t> mask;
    bool residual;  // a second addend
    const char* activation;
  };
  for (const Case& c : {Case{{7, 7}, false, ""}, Case{{1, 3, 7, 7}, true, "Relu"},
                        Case{{7, 7}, true, ""}, Case{{1, 1, 7, 7}, false, "Tanh"}}) {
    SCOPED_TRACE(testing::Message() << "mask " << Shape::of(c.mask).str()
                                    << (c.residual ? " + z" : "") << " '" << c.activation << "'");
    GraphBuilder g;
    g.input("q", {2, 3, 7, 5});
    g.input("k", {2, 3, 5, 7});
    std::vector<Tensor> inputs = {random_tensor(rng, {2, 3, 7, 5}),
                                  random_tensor(rng, {2, 3, 5, 7})};
    g.constant("mask", random_tensor(rng, c.mask));
    std::vector<std::string> in = {"q", "k", "mask"};
    if (c.residual) {
      g.input("z", {1, 3, 7, 7});
      inputs.push_back(random_tensor(rng, {1, 3, 7, 7}));
      in.push_back("z");
    }
    ir::Node& node = g.node("FusedMatMul", in, {"y"}, std::string(ops::kStrataDomain));
    node.attributes["alpha"] = attr_float(0.5f);
    node.attributes["activation"] = attr_string(c.activation);
    g.output("y");
    const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(g.build(), inputs);
    expect_onednn(steps);
    EXPECT_NE(steps[0].reason.find("the product runs alone, then "), std::string::npos)
        << steps[0].reason;
    EXPECT_NE(steps[0].reason.find("offers only ref"), std::string::npos) << steps[0].reason;
  }
}

// The attention scores of torch's nn.MultiheadAttention (and so nn.Transformer*) as exported:
// bmm over [batch * heads, T, dh], a scale, and a [T, T] float mask, fused by the graph passes.
TEST(OnednnMatMul, ExportedCausalAttentionScoresRunOnOptimisedImplementations) {
  std::mt19937 rng(7);
  GraphBuilder g;
  g.input("q", {8, 16, 8});
  g.input("kt", {8, 8, 16});
  Tensor mask = Tensor::zeros(DType::kF32, {16, 16});
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = i + 1; j < 16; ++j) mask.data<float>()[i * 16 + j] = -1e9f;
  g.constant("mask", std::move(mask));
  Tensor scale = Tensor::zeros(DType::kF32, {});
  scale.data<float>()[0] = 0.35f;
  g.constant("scale", std::move(scale));
  g.node("MatMul", {"q", "kt"}, {"scores"});
  g.node("Mul", {"scores", "scale"}, {"scaled"});
  g.node("Add", {"scaled", "mask"}, {"masked"});
  g.node("Softmax", {"masked"}, {"y"}).attributes["axis"] = attr_int(-1);
  g.output("y");
  ir::Graph graph = g.build();
  passes::optimize_graph(graph);
  const std::vector<runtime::StepInfo> steps = expect_fast_matches_reference(
      graph, {random_tensor(rng, {8, 16, 8}), random_tensor(rng, {8, 8, 16})});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(graph.nodes[steps[0].node_index].op_type, "FusedMatMul");
  for (const runtime::StepInfo& step : steps)
    EXPECT_EQ(step.kernel.find(":ref"), std::string::npos) << step.kernel << ": " << step.reason;
}

TEST(OnednnGemm, TransposesAlphaBetaAndBiasShapes) {
  std::mt19937 rng(2024);
  const std::vector<std::vector<int64_t>> c_shapes = {{}, {1}, {13}, {1, 13}, {9, 1}, {9, 13}};
  for (int i = 0; i < 16; ++i) {
    const bool ta = i & 1, tb = i & 2;
    const float alpha = (i & 4) ? 0.5f : 1.0f, beta = (i & 8) ? 2.0f : 1.0f;
    const std::vector<int64_t> c_shape = c_shapes[size_t(i) % c_shapes.size()];
    SCOPED_TRACE(testing::Message() << "transA " << ta << " transB " << tb << " alpha " << alpha
                                    << " beta " << beta << " C " << Shape::of(c_shape).str());
    const int64_t m = 9, k = 11, n = 13;
    GraphBuilder g;
    g.input("a", ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k});
    g.constant("b",
               random_tensor(rng, tb ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}));
    const bool has_c = i % 7 != 3;
    if (has_c) g.constant("c", random_tensor(rng, c_shape));
    ir::Node& node = g.node("Gemm", {"a", "b", has_c ? "c" : ""}, {"y"});
    node.attributes["transA"] = attr_int(ta);
    node.attributes["transB"] = attr_int(tb);
    node.attributes["alpha"] = attr_float(alpha);
    node.attributes["beta"] = attr_float(beta);
    g.output("y");
    expect_onednn(expect_fast_matches_reference(
        g.build(),
        {random_tensor(rng, ta ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k})}));
  }
}

TEST(OnednnMatMul, IntegerProductsStayWithTheReferenceKernel) {
  GraphBuilder g;
  g.input("a", {2, 3}, DType::kI32);
  g.input("b", {3, 2}, DType::kI32);
  g.node("MatMul", {"a", "b"}, {"y"});
  g.output("y");
  const SessionResult r = run_session(
      g.build(), {Tensor::zeros(DType::kI32, {2, 3}), Tensor::zeros(DType::kI32, {3, 2})}, {});
  EXPECT_EQ(r.steps[0].kernel, "reference");
  EXPECT_NE(r.steps[0].reason.find("onednn_matmul: oneDNN matmul runs f32 here"), std::string::npos)
      << r.steps[0].reason;
}

}  // namespace
}  // namespace strata::test
