// Gradient (src/ops/gradient.cpp, domain ai.onnx.preview.training): gradients checked by hand and
// against central finite differences, through every op with a backward rule, with broadcasting
// reduced back; and the errors for graphs it cannot differentiate.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "kernels/kernel_test_util.h"
#include "passes/optimize.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::test {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

// A model over inputs `names` (their shapes `shapes`, of `dtype`) whose `build` adds the forward
// nodes; a Gradient node of y with respect to xs (zs its other inputs) gives outputs g0, g1, ...
struct GradientModel {
  ModelBuilder m{17};
  std::vector<std::string> xs, zs;
  std::string y;
  DType dtype = DType::kF32;
  bool y_is_output = true;

  void input(const std::string& name, std::vector<DimSpec> dims) { m.add_input(name, dtype, dims); }
  // Adds the Gradient node and the outputs, and loads the model (shape inference included).
  runtime::Model load() {
    auto* import = m.proto().add_opset_import();
    import->set_domain(kTraining);
    import->set_version(1);
    std::vector<std::string> ins = xs, outs;
    ins.insert(ins.end(), zs.begin(), zs.end());
    for (size_t i = 0; i < xs.size(); ++i) {
      outs.push_back("g" + std::to_string(i));
      m.add_output(outs.back());
    }
    if (y_is_output) m.add_output(y);
    onnx::NodeProto& node = m.add_node("Gradient", ins, outs, "grad");
    node.set_domain(kTraining);
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name("xs");
    a->set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& x : xs) a->add_strings(x);
    if (!zs.empty()) {
      onnx::AttributeProto* z = node.add_attribute();
      z->set_name("zs");
      z->set_type(onnx::AttributeProto::STRINGS);
      for (const std::string& name : zs) z->add_strings(name);
    }
    set_attr(node, "y", y);
    TempDir dir;
    return runtime::load_model(m.save(dir.path("model.onnx")));
  }
  std::vector<Tensor> run(const std::vector<Tensor>& inputs) {
    const runtime::Model model = load();
    return run_session(model.graph, inputs, {}).outputs;
  }
};

void expect_values(const Tensor& t, const std::vector<double>& want, double tolerance = 1e-5) {
  const std::vector<double> got = t.to_double();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tolerance) << "at " << i;
}

TEST(Gradient, OfAddAndMulByHand) {
  GradientModel g;
  g.input("a", {3});
  g.input("b", {3});
  g.m.add_node("Add", {"a", "b"}, {"c"});
  g.m.add_node("Mul", {"c", "a"}, {"d"});
  g.xs = {"a", "b"};
  g.y = "d";
  // d = (a + b) · a: ∂d/∂a = 2a + b, ∂d/∂b = a.
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({3}, {1, 2, 3}), Tensor::from<float>({3}, {4, 5, 6})});
  expect_values(out[0], {6, 9, 12});
  expect_values(out[1], {1, 2, 3});
  expect_values(out[2], {5, 14, 27});  // d itself
}

TEST(Gradient, BroadcastGradientsSumOverTheBroadcastDims) {
  GradientModel g;
  g.input("a", {2, 3});
  g.input("b", {3});
  g.m.add_node("Mul", {"a", "b"}, {"y"});
  g.xs = {"a", "b"};
  g.y = "y";
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor::from<float>({3}, {7, 8, 9})});
  expect_values(out[0], {7, 8, 9, 7, 8, 9});
  expect_values(out[1], {5, 7, 9});  // columns of a summed
}

TEST(Gradient, ZsAreReadButNotDifferentiated) {
  GradientModel g;
  g.input("x", {2});
  g.input("z", {2});
  g.m.add_node("Sub", {"x", "z"}, {"s"});
  g.m.add_node("Mul", {"s", "z"}, {"y"});
  g.xs = {"x"};
  g.zs = {"z"};
  g.y = "y";
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({2}, {1, 2}), Tensor::from<float>({2}, {3, -4})});
  expect_values(out[0], {3, -4});
}

// f(x, w) through every op with a backward rule, in double precision; the gradients must match
// central finite differences of f's sum.
TEST(Gradient, EveryBackwardRuleMatchesFiniteDifferences) {
  GradientModel g;
  g.dtype = DType::kF64;
  g.input("x", {2, 3, 4});
  g.input("w", {4, 3});
  g.m.add_initializer("k", Tensor::from<double>({3}, {0.5, -1.5, 2.0}));
  g.m.add_node("MatMul", {"x", "w"}, {"p"});  // [2,3,3], w broadcast over the batch
  g.m.add_node("Tanh", {"p"}, {"t"});
  g.m.add_node("Mul", {"t", "k"}, {"q"});  // a constant operand
  g.m.add_node("Sigmoid", {"q"}, {"s"});
  g.m.add_node("Exp", {"s"}, {"e"});
  g.m.add_node("Log", {"e"}, {"l"});  // log(exp(s)) = s, through both rules
  g.m.add_node("Relu", {"p"}, {"r"});
  g.m.add_node("Add", {"l", "r"}, {"u"});
  g.m.add_node("Sqrt", {"e"}, {"h"});
  g.m.add_node("Div", {"u", "h"}, {"v"});
  g.m.add_node("Neg", {"v"}, {"n"});
  g.m.add_node("Identity", {"n"}, {"i"});
  g.m.add_node("Sub", {"i", "t"}, {"y"});
  g.xs = {"x", "w"};
  g.y = "y";
  std::vector<double> xv(24), wv(12);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(double(i) * 1.7) * 0.8;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::cos(double(i) * 0.9) * 0.7;
  // f's sum, computed here by hand for the finite differences.
  auto f = [&](const std::vector<double>& x, const std::vector<double>& w) {
    const double k[3] = {0.5, -1.5, 2.0};
    double sum = 0;
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          double p = 0;
          for (int l = 0; l < 4; ++l) p += x[size_t(b * 12 + i * 4 + l)] * w[size_t(l * 3 + j)];
          const double t = std::tanh(p), s = 1 / (1 + std::exp(-t * k[j]));
          const double e = std::exp(s), u = std::log(e) + std::max(p, 0.0);
          sum += -(u / std::sqrt(e)) - t;
        }
    return sum;
  };
  const std::vector<Tensor> out =
      g.run({Tensor::from<double>({2, 3, 4}, std::span<const double>(xv)),
             Tensor::from<double>({4, 3}, std::span<const double>(wv))});
  const double h = 1e-6;
  for (int which = 0; which < 2; ++which) {
    std::vector<double>& v = which == 0 ? xv : wv;
    std::vector<double> want(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const double keep = v[i];
      v[i] = keep + h;
      const double up = f(xv, wv);
      v[i] = keep - h;
      const double down = f(xv, wv);
      v[i] = keep;
      want[i] = (up - down) / (2 * h);
    }
    expect_values(out[size_t(which)], want, 1e-6);
  }
}

// y = A·B with A [2,2], B [2,1]: ∂(Σy)/∂A[i][k] = B[k], ∂(Σy)/∂B[k] = Σᵢ A[i][k].
TEST(Gradient, OfMatMulByHand) {
  GradientModel g;
  g.input("A", {2, 2});
  g.input("B", {2, 1});
  g.m.add_node("MatMul", {"A", "B"}, {"y"});
  g.xs = {"A", "B"};
  g.y = "y";
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({2, 2}, {1, 2, 3, 4}), Tensor::from<float>({2, 1}, {5, 6})});
  expect_values(out[0], {5, 6, 5, 6});
  expect_values(out[1], {4, 6});
  expect_values(out[2], {17, 39});
}

// A 1-D operand: y = a·B with a [2], B [2,3] gives y [3]; ∂/∂a[k] = Σⱼ B[k][j], ∂/∂B[k][j] = a[k].
TEST(Gradient, OfAVectorTimesAMatrixByHand) {
  GradientModel g;
  g.input("a", {2});
  g.input("B", {2, 3});
  g.m.add_node("MatMul", {"a", "B"}, {"y"});
  g.xs = {"a", "B"};
  g.y = "y";
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({2}, {2, -1}), Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6})});
  expect_values(out[0], {6, 15});
  expect_values(out[1], {2, 2, 2, -1, -1, -1});
}

// The gradient of a double x is written in double, not rounded through float.
TEST(Gradient, DoubleGradientsKeepDoublePrecision) {
  GradientModel g;
  g.dtype = DType::kF64;
  g.input("x", {1});
  g.input("z", {1});
  g.m.add_node("Mul", {"x", "z"}, {"y"});
  g.xs = {"x"};
  g.zs = {"z"};
  g.y = "y";
  const double z = 1.0 + 1e-12;
  const std::vector<Tensor> out =
      g.run({Tensor::from<double>({1}, {3.0}), Tensor::from<double>({1}, {z})});
  EXPECT_EQ(out[0].to_double()[0], z);
}

// Refused while loading, before any input is given: one sentence naming the Gradient node, the
// node it cannot differentiate and that node's op.
TEST(Gradient, AnOpWithoutABackwardRuleIsRefusedAtLoad) {
  GradientModel g;
  g.input("x", {2, 3});
  g.m.add_node("Softmax", {"x"}, {"y"}, "soft");
  g.xs = {"x"};
  g.y = "y";
  expect_error([&] { g.load(); },
               {"Gradient node 'grad'", "Softmax node 'soft'", "no backward rule for Softmax"});
}

// A node without a rule that only reads zs or constants needs none: its output is a constant of
// the differentiation.
TEST(Gradient, AnOpWithoutARuleOffThePathIsAccepted) {
  GradientModel g;
  g.input("x", {3});
  g.input("z", {3});
  g.m.add_node("Softmax", {"z"}, {"p"});
  g.m.add_node("Mul", {"x", "p"}, {"y"});
  g.xs = {"x"};
  g.zs = {"z"};
  g.y = "y";
  // softmax of equal values is 1/3 each.
  const std::vector<Tensor> out =
      g.run({Tensor::from<float>({3}, {1, 2, 3}), Tensor::from<float>({3}, {7, 7, 7})});
  expect_values(out[0], {1.0 / 3, 1.0 / 3, 1.0 / 3});
}

// The path is walked with a stack of its own: a long chain does not overflow the call stack.
TEST(Gradient, ThroughALongChain) {
  GradientModel g;
  g.input("x", {2});
  constexpr int kLength = 50000;
  std::string last = "x";
  for (int i = 0; i < kLength; ++i) {
    const std::string next = "v" + std::to_string(i);
    g.m.add_node(i % 2 ? "Neg" : "Identity", {last}, {next});
    last = next;
  }
  g.xs = {"x"};
  g.y = last;
  g.y_is_output = false;
  // kLength / 2 negations: an even count, so ∂y/∂x = 1.
  const std::vector<Tensor> out = g.run({Tensor::from<float>({2}, {1, 2})});
  expect_values(out[0], {1, 1});
}

TEST(Gradient, ANameInBothXsAndZsIsRefused) {
  GradientModel g;
  g.input("x", {2});
  g.m.add_node("Neg", {"x"}, {"y"});
  g.xs = {"x"};
  g.zs = {"x"};
  g.y = "y";
  expect_error([&] { g.load(); }, {"'x' twice"});
}

// The optimizer leaves a graph with a Gradient node as written: a target that is no graph output
// keeps the nodes computing it, and MatMul + Add is not fused into an op without a rule.
TEST(Gradient, TheOptimizerLeavesTheGraphAsWritten) {
  GradientModel g;
  g.input("x", {2, 2});
  g.m.add_initializer("w", Tensor::from<float>({2, 2}, {1, 0, 0, 1}));
  g.m.add_initializer("b", Tensor::from<float>({2}, {1, 1}));
  g.m.add_node("MatMul", {"x", "w"}, {"p"});
  g.m.add_node("Add", {"p", "b"}, {"y"});
  g.xs = {"x"};
  g.y = "y";
  g.y_is_output = false;
  runtime::Model model = g.load();
  const size_t before = model.graph.nodes.size();
  passes::optimize_graph(model.graph);
  EXPECT_EQ(model.graph.nodes.size(), before);
  runtime::Session session(model.graph, {{DType::kF32, {2, 2}}}, {});
  const Tensor x = Tensor::from<float>({2, 2}, {1, 2, 3, 4});
  session.run({&x});
  expect_values(session.output(0), {1, 1, 1, 1});
}

TEST(Gradient, ATargetNeedingAnUnlistedInputIsRefused) {
  GradientModel g;
  g.input("x", {2});
  g.input("other", {2});
  g.m.add_node("Add", {"x", "other"}, {"y"});
  g.xs = {"x"};
  g.y = "y";
  expect_error(
      [&] {
        g.run({Tensor::zeros(DType::kF32, {2}), Tensor::zeros(DType::kF32, {2})});
      },
      {"'other'", "neither among xs and zs nor a constant"});
}

TEST(Gradient, AnUnknownTargetIsRefused) {
  GradientModel g;
  g.input("x", {2});
  g.xs = {"x"};
  g.y = "missing";
  g.y_is_output = false;
  expect_error([&] { g.run({Tensor::zeros(DType::kF32, {2})}); }, {"'missing'"});
}

}  // namespace
}  // namespace strata::test
