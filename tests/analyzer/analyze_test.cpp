// The analyzer on small models whose figures are worked out by hand: formulas in symbolic dims,
// values at given sizes, liveness, the training estimate, and what it reports as unknown.
#include "analyzer/analyze.h"

#include <gtest/gtest.h>

#include <cmath>

#include "onnx/loader.h"
#include "testutil/control_flow_models.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"

namespace strata::analyzer {
namespace {

using test::ModelBuilder;
using test::set_attr;

struct Analysed {
  ir::Graph graph;
  Analysis analysis;
  const NodeAnalysis& node(const std::string& name) const {
    const NodeAnalysis* n = analysis.find(graph, name);
    if (!n) throw std::runtime_error("no node " + name);
    return *n;
  }
};

ir::Graph load(const ModelBuilder& model) {
  test::TempDir dir;
  return onnx_import::load_model(model.save(dir.path("model.onnx"))).graph;
}

Analysed analyse(const ModelBuilder& model, const AnalyzeOptions& options = {}) {
  Analysed a{load(model), {}};
  a.analysis = analyze(a.graph, options);
  return a;
}

std::string formula(const Analysed& a, const Quantity& q) {
  return q.formula ? q.formula->str(a.analysis.symbols, format_exact) : "none";
}

std::string shape(const Analysed& a, const NodeAnalysis& n, size_t output = 0) {
  std::string s;
  for (const Quantity& d : n.outputs[output].dims) s += (s.empty() ? "" : ",") + formula(a, d);
  return "[" + s + "]";
}

AnalyzeOptions sized(std::map<std::string, int64_t> dims, bool formulas = true) {
  AnalyzeOptions o;
  o.dims = std::move(dims);
  o.formulas = formulas;
  return o;
}

AnalyzeOptions shaped(std::map<std::string, Shape> shapes) {
  AnalyzeOptions o;
  o.input_shapes = std::move(shapes);
  return o;
}

Tensor weights(std::vector<int64_t> shape) {
  return Tensor::zeros(DType::kF32, std::move(shape));
}

// y = x[N,64] · W[64,32]
ModelBuilder matmul_model() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 64});
  m.add_initializer("W", weights({64, 32}));
  m.add_node("MatMul", {"x", "W"}, {"y"}, "mm");
  m.add_output("y", DType::kF32, {"N", 32});
  return m;
}

TEST(AnalyzerAnalyze, MatMulCostsAreFormulasInTheBatch) {
  const Analysed a = analyse(matmul_model());
  ASSERT_EQ(a.analysis.symbols, std::vector<std::string>{"N"});
  const NodeAnalysis& mm = a.node("mm");
  EXPECT_EQ(mm.state, NodeState::kKnown);
  EXPECT_EQ(shape(a, mm), "[N,32]");
  EXPECT_EQ(formula(a, mm.macs), "2048·N");  // K·M·N = 64·32·N
  EXPECT_EQ(formula(a, mm.flops), "4096·N");
  EXPECT_EQ(formula(a, mm.backward_flops), "8192·N");  // 2× forward
  EXPECT_EQ(formula(a, mm.output_bytes), "128·N");
  EXPECT_EQ(formula(a, mm.saved_bytes), "256·N");  // x, for the weight gradient
  EXPECT_EQ(mm.params, 2048);
  EXPECT_EQ(mm.param_bytes, 8192);
  EXPECT_FALSE(mm.macs.value);  // N has no size
  EXPECT_EQ(a.analysis.totals.params, 2048);
  EXPECT_EQ(formula(a, a.analysis.totals.macs), "2048·N");
  EXPECT_EQ(formula(a, a.analysis.totals.peak_activation_bytes), "384·N");  // x and y
  EXPECT_TRUE(a.analysis.totals.complete);
  EXPECT_EQ(a.analysis.evaluations, 3);  // linear: 2 lattice points + the check
}

TEST(AnalyzerAnalyze, SizesGivenEvaluateEveryFigure) {
  const Analysed a = analyse(matmul_model(), sized({{"N", 8}}));
  const NodeAnalysis& mm = a.node("mm");
  EXPECT_EQ(formula(a, mm.macs), "2048·N");
  ASSERT_TRUE(mm.macs.value);
  EXPECT_EQ(*mm.macs.value, 2048 * 8);
  EXPECT_EQ(*a.analysis.totals.flops.value, 4096 * 8);
  EXPECT_EQ(*mm.outputs[0].dims[0].value, 8);
  EXPECT_EQ(a.analysis.evaluations, 4);  // and the sizes given
}

TEST(AnalyzerAnalyze, FixedShapesGiveConstants) {
  const Analysed a = analyse(matmul_model(), shaped({{"x", Shape{3, 64}}}));
  EXPECT_TRUE(a.analysis.symbols.empty());
  EXPECT_EQ(*a.analysis.totals.macs.value, 2048 * 3);
  EXPECT_EQ(formula(a, a.analysis.totals.macs), "6144");
  EXPECT_EQ(a.analysis.evaluations, 1);
}

TEST(AnalyzerAnalyze, WithoutFormulasOnlyTheSizesGiven) {
  const Analysed a = analyse(matmul_model(), sized({{"N", 2}}, false));
  EXPECT_EQ(a.analysis.evaluations, 1);
  EXPECT_FALSE(a.node("mm").macs.formula);
  EXPECT_EQ(*a.node("mm").macs.value, 4096);
  test::expect_error([&] { analyse(matmul_model(), sized({}, false)); }, {"N"});
}

TEST(AnalyzerAnalyze, AttentionScoresGrowWithTheSquareOfTheSequence) {
  // scores = softmax(q · qᵀ) for q [N, S, 64]
  ModelBuilder m;
  m.add_input("q", DType::kF32, {"N", "S", 64});
  set_attr(m.add_node("Transpose", {"q"}, {"qt"}, "transpose"), "perm",
           std::vector<int64_t>{0, 2, 1});
  m.add_node("MatMul", {"q", "qt"}, {"scores"}, "scores");
  set_attr(m.add_node("Softmax", {"scores"}, {"p"}, "softmax"), "axis", int64_t(-1));
  m.add_output("p", DType::kF32, {"N", "S", "S"});
  const Analysed a = analyse(m);
  ASSERT_EQ(a.analysis.symbols, (std::vector<std::string>{"N", "S"}));
  EXPECT_EQ(shape(a, a.node("scores")), "[N,S,S]");
  EXPECT_EQ(formula(a, a.node("scores").macs), "64·N·S²");
  EXPECT_EQ(formula(a, a.node("softmax").flops), "5·N·S²");        // 5 FLOPs per element
  EXPECT_EQ(formula(a, a.node("transpose").flops), "0");           // data movement
  EXPECT_EQ(formula(a, a.node("scores").saved_bytes), "512·N·S");  // q and qᵀ
  EXPECT_EQ(formula(a, a.node("softmax").saved_bytes), "4·N·S²");  // its output
  EXPECT_EQ(formula(a, a.analysis.totals.macs), "64·N·S²");
  // Degree 1 (3 lattice points + the check) does not fit N·S², nor degree 2 (3 more points): the
  // degree-3 lattice has 10 points.
  EXPECT_EQ(a.analysis.evaluations, 11);
}

TEST(AnalyzerAnalyze, StridesOnASymbolicHeightAreNotPolynomials) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1, 1, "H", 8});
  m.add_initializer("w", weights({1, 1, 3, 3}));
  set_attr(m.add_node("Conv", {"x", "w"}, {"y"}, "conv"), "strides", std::vector<int64_t>{2, 2});
  m.add_output("y", DType::kF32, {1, 1, "h", 3});
  const Analysed a = analyse(m);
  const NodeAnalysis& conv = a.node("conv");
  EXPECT_FALSE(conv.macs.formula);
  EXPECT_FALSE(conv.outputs[0].dims[2].formula);
  EXPECT_EQ(formula(a, conv.outputs[0].dims[3]), "3");
  EXPECT_NE(conv.note.find("not polynomials"), std::string::npos) << conv.note;
  EXPECT_FALSE(a.analysis.warnings.empty());

  const Analysed at9 = analyse(m, sized({{"H", 9}}));  // (9 - 3) / 2 + 1 = 4 rows
  EXPECT_EQ(*at9.node("conv").outputs[0].dims[2].value, 4);
  EXPECT_EQ(*at9.node("conv").macs.value, 4 * 3 * 9);
}

TEST(AnalyzerAnalyze, ReshapeTargetsFromShapesAreFoldedAndStaySymbolic) {
  // y = Reshape(x, Concat(Shape(x)[0:1], [-1])): the shape chain runs ahead of time.
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 4, 8});
  m.add_node("Shape", {"x"}, {"s"}, "shape");
  m.add_int64_initializer("zero", {1}, {0});
  m.add_int64_initializer("one", {1}, {1});
  m.add_int64_initializer("minus_one", {1}, {-1});
  m.add_node("Slice", {"s", "zero", "one"}, {"n"}, "slice");
  set_attr(m.add_node("Concat", {"n", "minus_one"}, {"target"}, "concat"), "axis", int64_t(0));
  m.add_node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.add_output("y", DType::kF32, {"N", 32});
  const Analysed a = analyse(m);
  EXPECT_TRUE(a.node("shape").folded);
  EXPECT_TRUE(a.node("concat").folded);
  EXPECT_FALSE(a.node("reshape").folded);
  EXPECT_EQ(shape(a, a.node("reshape")), "[N,32]");
  EXPECT_EQ(a.analysis.totals.params, 0);  // int64 vectors are shape arguments, not weights
  EXPECT_TRUE(a.analysis.totals.complete);
}

TEST(AnalyzerAnalyze, RunTimeReshapeTargetsMakeDownstreamUnknown) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 6});
  m.add_input("target", DType::kI64, {2});
  m.add_node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.add_node("Relu", {"y"}, {"z"}, "relu");
  m.add_output("z");
  const Analysed a = analyse(m);
  EXPECT_EQ(a.node("reshape").state, NodeState::kDataDependent);
  EXPECT_NE(a.node("reshape").note.find("known only at run time"), std::string::npos);
  EXPECT_EQ(a.node("relu").state, NodeState::kInputUnknown);
  EXPECT_NE(a.node("relu").note.find("'reshape'"), std::string::npos) << a.node("relu").note;
  EXPECT_FALSE(a.node("relu").flops.known());  // unknown, never zero
  EXPECT_FALSE(a.analysis.totals.complete);
  EXPECT_FALSE(a.analysis.totals.peak_activation_bytes.known());
  EXPECT_EQ(a.analysis.data_dependent, std::vector<size_t>{0});
  EXPECT_EQ(a.analysis.unknown, std::vector<size_t>{1});
}

TEST(AnalyzerAnalyze, UnsupportedOpsAreListedNotFatal) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {4});
  m.add_node("Mystery", {"x"}, {"i"}, "nz").set_domain("com.example");  // no such op anywhere
  m.add_node("Relu", {"x"}, {"r"}, "relu");
  m.add_output("i");
  m.add_output("r", DType::kF32, {4});
  const Analysed a = analyse(m);
  EXPECT_EQ(a.node("nz").state, NodeState::kUnsupported);
  EXPECT_EQ(a.node("relu").state, NodeState::kKnown);
  EXPECT_EQ(*a.analysis.totals.flops.value, 4);
  ASSERT_FALSE(a.analysis.warnings.empty());
  EXPECT_NE(a.analysis.warnings[0].find("Mystery node 'nz'"), std::string::npos);
}

TEST(AnalyzerAnalyze, LivenessPeakArenaAndSavedActivations) {
  // r1 = relu(x); r2 = relu(r1); y = r1 + r2, 1000 floats each (4000 bytes).
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1000});
  m.add_node("Relu", {"x"}, {"r1"}, "relu1");
  m.add_node("Relu", {"r1"}, {"r2"}, "relu2");
  m.add_node("Add", {"r1", "r2"}, {"y"}, "add");
  m.add_output("y", DType::kF32, {1000});
  const Analysed a = analyse(m);
  // After relu1: r1 (x is dead). After relu2: r1, r2. After add: y (a graph output).
  EXPECT_EQ(*a.node("relu1").live_after_bytes.value, 4000);
  EXPECT_EQ(*a.node("relu2").live_after_bytes.value, 8000);
  EXPECT_EQ(*a.node("add").live_after_bytes.value, 4000);
  EXPECT_EQ(*a.analysis.totals.peak_activation_bytes.value, 12000);  // r1, r2, y during add
  EXPECT_EQ(*a.analysis.totals.arena_bytes.value, 3 * 4032);         // 64-byte aligned buffers
  EXPECT_EQ(*a.analysis.totals.input_bytes.value, 4000);
  // Relu keeps its output for the backward pass; Add keeps nothing.
  EXPECT_EQ(*a.node("relu1").saved_bytes.value, 4000);
  EXPECT_EQ(*a.node("add").saved_bytes.value, 0);
  EXPECT_EQ(*a.node("relu2").accumulated_saved_bytes.value, 8000);
  EXPECT_EQ(*a.analysis.totals.training.saved_activations.value, 8000);
  EXPECT_EQ(*a.analysis.totals.flops.value, 3000);
  EXPECT_EQ(*a.analysis.totals.backward_flops.value, 3000);  // 1× for element-wise ops
}

TEST(AnalyzerAnalyze, TrainingEstimateAddsWeightsGradientsAndOptimizerState) {
  // Two MatMuls sharing one weight: counted once.
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 10});
  m.add_initializer("W", weights({10, 10}));
  m.add_node("MatMul", {"x", "W"}, {"h"}, "mm1");
  m.add_node("MatMul", {"h", "W"}, {"y"}, "mm2");
  m.add_output("y", DType::kF32, {2, 10});
  const Analysed a = analyse(m);
  const Totals& t = a.analysis.totals;
  EXPECT_EQ(a.node("mm1").params, 100);
  EXPECT_EQ(a.node("mm2").params, 100);
  EXPECT_EQ(t.params, 100);
  EXPECT_EQ(t.training.parameters, 400);
  EXPECT_EQ(t.training.gradients, 400);
  EXPECT_EQ(t.training.sgd_momentum, 400);
  EXPECT_EQ(t.training.adam, 800);
  EXPECT_EQ(*t.training.saved_activations.value, 160);  // x and h, 80 bytes each
  EXPECT_EQ(*t.training.total_sgd.value, 160 + 3 * 400);
  EXPECT_EQ(*t.training.total_adam.value, 160 + 4 * 400);
}

TEST(AnalyzerAnalyze, BadOptionsNameWhatIsWrong) {
  const ir::Graph g = load(matmul_model());
  test::expect_error([&] { analyze(g, sized({{"B", 2}})); }, {"'B'", "N"});
  test::expect_error([&] { analyze(g, shaped({{"y", Shape{1, 64}}})); }, {"'y'", "x"});
  test::expect_error(
      [&] {
        analyze(g, shaped({{"x", Shape{1, 63}}}));
      },
      {"'x'", "[N,64]", "[1,63]"});
  test::expect_error([&] { analyze(g, shaped({{"x", Shape{1, 64, 1}}})); }, {"'x'"});
}

TEST(AnalyzerAnalyze, ShapeRulesFailingAtALatticePointSaySo) {
  // x [N, 6] reshaped to [4, -1] only works when 6·N is a multiple of 4.
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 6});
  m.add_int64_initializer("t", {2}, {5, -1});
  m.add_node("Reshape", {"x", "t"}, {"y"}, "reshape");
  m.add_output("y");
  test::expect_error([&] { analyse(m); }, {"N=", "reshape"});
}

TEST(AnalyzerAnalyze, ParsesSymbolicShapes) {
  EXPECT_EQ(parse_symbolic_shape("1x3xHxW", "--shape x"),
            (Shape{1, 3, Dim::symbol("H"), Dim::symbol("W")}));
  EXPECT_EQ(parse_symbolic_shape("batch,max_len", "--shape x"),
            (Shape{Dim::symbol("batch"), Dim::symbol("max_len")}));
  test::expect_error([] { parse_symbolic_shape("1x-3", "--shape x"); }, {"--shape x", "1x-3"});
  test::expect_error([] { parse_symbolic_shape("", "--shape x"); }, {"--shape x"});
}

// ---- Control flow and data-dependent counts ----

TEST(AnalyzerControlFlow, IfCountsTheLargerBranchAndSaysSo) {
  // then: x + 1 (3 FLOPs); else: Concat(x, x) (data movement, 0 FLOPs).
  const Analysed a = analyse(test::if_model(6));
  const NodeAnalysis& n = a.node("choose");
  EXPECT_EQ(n.flops.value, 3.0);
  EXPECT_NE(n.note.find("then branch 3 FLOPs, else branch 0 FLOPs: the larger (then) counted"),
            std::string::npos)
      << n.note;
}

TEST(AnalyzerControlFlow, LoopWithARunTimeTripCountIsAFormulaInItsOwnSymbol) {
  // M is a model input: the loop's count is known only while running. Each iteration adds x[2].
  const Analysed a = analyse(test::loop_model());
  EXPECT_NE(std::find(a.analysis.symbols.begin(), a.analysis.symbols.end(), "repeat.trips"),
            a.analysis.symbols.end());
  const NodeAnalysis& n = a.node("repeat");
  EXPECT_EQ(formula(a, n.flops), "2·repeat.trips");
  EXPECT_NE(n.note.find("known only while running"), std::string::npos) << n.note;
  EXPECT_NE(n.note.find("--dim repeat.trips=COUNT"), std::string::npos) << n.note;
  // The stacked scan output has at most M rows.
  EXPECT_EQ(shape(a, n, 1), "[repeat.trips,2]");

  const Analysed sized_loop = analyse(test::loop_model(), sized({{"repeat.trips", 5}}));
  EXPECT_EQ(sized_loop.node("repeat").flops.value, 10.0);
  EXPECT_EQ(sized_loop.analysis.totals.flops.value, 10.0);
  EXPECT_NE(sized_loop.node("repeat").note.find("= 5 iterations (given)"), std::string::npos)
      << sized_loop.node("repeat").note;
}

TEST(AnalyzerControlFlow, LoopWithAConstantTripCountNeedsNoSymbol) {
  const Analysed a = analyse(test::loop_model(0, 3));
  EXPECT_TRUE(a.analysis.symbols.empty());
  const NodeAnalysis& n = a.node("repeat");
  EXPECT_EQ(n.flops.value, 6.0);  // 3 iterations × an Add of [2]
  EXPECT_EQ(shape(a, n, 1), "[3,2]");
  EXPECT_NE(n.note.find("M = 3 iterations × 2 FLOPs per iteration: an upper bound"),
            std::string::npos)
      << n.note;
}

TEST(AnalyzerControlFlow, ScanIsItsLengthTimesOneIteration) {
  const Analysed a = analyse(test::scan_model(0, 0));
  const NodeAnalysis& n = a.node("scan");
  EXPECT_EQ(n.flops.value, 6.0);  // 3 rows × an Add of [2]
  EXPECT_NE(n.note.find("the scan length 3 × 2 FLOPs per iteration"), std::string::npos) << n.note;
}

// NonZero of x [2, N] then a Transpose: the count is at most 2·N, stated, and what follows is an
// upper bound too; never an unknown counted as zero.
TEST(AnalyzerControlFlow, NonZeroCountIsAStatedUpperBound) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, test::DimSpec("N")});
  m.add_node("NonZero", {"x"}, {"idx"}, "nz");
  m.add_node("Transpose", {"idx"}, {"t"}, "tr");
  m.add_output("t", DType::kI64, {test::DimSpec::unknown(), 2});
  const Analysed a = analyse(m, sized({{"N", 3}}));
  EXPECT_TRUE(a.analysis.data_dependent.empty());
  ASSERT_EQ(a.analysis.upper_bounds.size(), 1u);
  EXPECT_EQ(shape(a, a.node("nz")), "[2,2·N]");
  EXPECT_TRUE(a.node("nz").upper_bound);
  EXPECT_NE(a.node("nz").note.find("at most the input's elements = 6"), std::string::npos)
      << a.node("nz").note;
  EXPECT_TRUE(a.node("tr").upper_bound);
  EXPECT_NE(a.node("tr").note.find("an upper bound (after NonZero node 'nz')"), std::string::npos)
      << a.node("tr").note;
  EXPECT_EQ(a.node("tr").output_bytes.value, 2 * 6 * 8.0);
  bool warned = false;
  for (const std::string& w : a.analysis.warnings)
    warned |= w.find("upper bound") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(AnalyzerControlFlow, NmsCountIsMaxBoxesPerClassTimesClassesTimesBatch) {
  ModelBuilder m;
  m.add_input("boxes", DType::kF32, {1, 10, 4});
  m.add_input("scores", DType::kF32, {1, 3, 10});
  m.add_initializer("max_per_class", Tensor::from<int64_t>({1}, {5}));
  m.add_node("NonMaxSuppression", {"boxes", "scores", "max_per_class"}, {"sel"}, "nms");
  m.add_output("sel", DType::kI64, {test::DimSpec::unknown(), 3});
  const Analysed a = analyse(m);
  EXPECT_EQ(shape(a, a.node("nms")), "[15,3]");
  EXPECT_NE(a.node("nms").note.find(
                "output count at most max_output_boxes_per_class × classes × batch = 15"),
            std::string::npos)
      << a.node("nms").note;
  // Per batch and class (3 lists of 10 boxes): the sort, 10·log2 10, and 15 FLOPs per pair.
  EXPECT_NEAR(std::stod(formula(a, a.node("nms").flops)), 3 * (10 * std::log2(10.0) + 15 * 50), 1)
      << formula(a, a.node("nms").flops);
}

}  // namespace
}  // namespace strata::analyzer
