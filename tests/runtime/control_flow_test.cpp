// If, Loop and Scan: bodies loaded as subgraphs reading outer values by name, their shape rules,
// runs through body sessions, the --timeout deadline, and the errors for bodies that do not fit.
#include "runtime/control_flow.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "onnx/loader.h"
#include "passes/infer_shapes.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/cli_util.h"
#include "testutil/control_flow_models.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"
#include "testutil/run_util.h"

namespace strata::test {
namespace {

using runtime::InputSpec;
using runtime::Session;
using runtime::SessionOptions;

std::vector<Tensor> run(const ir::Graph& g, const std::vector<Tensor>& inputs,
                        SessionOptions options = {}) {
  std::vector<InputSpec> specs;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape()});
    ptrs.push_back(&t);
  }
  Session session(g, specs, options);
  session.run(ptrs);
  std::vector<Tensor> out;
  for (size_t i = 0; i < session.num_outputs(); ++i) out.push_back(session.output(i).clone());
  return out;
}

TEST(ControlFlow, IfLoadsBodiesWithCapturesAsImplicitInputs) {
  TempDir dir;
  const ir::Graph g = onnx_import::load_model(if_model().save(dir.path("m.onnx"))).graph;
  ASSERT_EQ(g.nodes.size(), 1u);
  const ir::Node& node = g.nodes[0];
  EXPECT_EQ(node.implicit_inputs, 1u);
  ASSERT_EQ(node.inputs.size(), 2u);
  EXPECT_EQ(g.values[size_t(node.inputs[1])].name, "x");
  const ir::Graph& then_b = *node.attributes.at("then_branch").graph;
  ASSERT_EQ(then_b.captures.size(), 1u);
  EXPECT_EQ(then_b.values[size_t(then_b.captures[0])].name, "x");
  EXPECT_TRUE(then_b.values[size_t(then_b.captures[0])].is_captured);
}

TEST(ControlFlow, IfRunsTheBranchTheConditionChooses) {
  const ir::Graph g = load_graph(if_model());
  const Tensor x = Tensor::from<float>({3}, {1, -2, 3});
  EXPECT_EQ(floats_of(run(g, {Tensor::from<bool>({}, {true}), x})[0]),
            (std::vector<float>{2, -1, 4}));
  EXPECT_EQ(floats_of(run(g, {Tensor::from<bool>({}, {false}), x})[0]),
            (std::vector<float>{-1, 2, -3}));
  SessionOptions reference;
  reference.fast_kernels = false;
  EXPECT_EQ(floats_of(run(g, {Tensor::from<bool>({}, {true}), x}, reference)[0]),
            (std::vector<float>{2, -1, 4}));
}

TEST(ControlFlow, IfBranchesThatDisagreeGiveASymbolicDim) {
  const ir::Graph g = load_graph(if_model(6));
  const ir::Value& y = g.values[size_t(g.find_value("y"))];
  ASSERT_TRUE(y.shape_known);
  ASSERT_EQ(y.shape.rank(), 1);
  EXPECT_FALSE(y.shape[0].is_static());
  const Tensor x = Tensor::from<float>({3}, {1, 2, 3});
  EXPECT_EQ(run(g, {Tensor::from<bool>({}, {false}), x})[0].shape(), (std::vector<int64_t>{6}));
  EXPECT_EQ(run(g, {Tensor::from<bool>({}, {true}), x})[0].shape(), (std::vector<int64_t>{3}));
}

TEST(ControlFlow, LoopCarriesValuesAndStacksScanOutputs) {
  const ir::Graph g = load_graph(loop_model());
  const std::vector<Tensor> out =
      run(g, {Tensor::from<int64_t>({}, {3}), Tensor::from<float>({2}, {1, 2})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{13, 26}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{11, 22, 12, 24, 13, 26}));
}

// torch.onnx declares a carried value's first shape in the body; it may grow every iteration
// (torchvision's mask pasting appends to a list).
TEST(ControlFlow, LoopCarriedValueGrowsPastItsDeclaredShape) {
  const ir::Graph g = load_graph(growing_loop_model(3, false, /*declare_first_shape=*/true));
  const std::vector<Tensor> out = run(g, {Tensor::from<float>({1, 4}, {1, -2, 3, -4})});
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(floats_of(out[0]),
            (std::vector<float>{0, 0, 0, 0, 1, 0, 3, 0, 1, 0, 3, 0, 1, 0, 3, 0}));
}

TEST(ControlFlow, LoopStopsWhenTheBodySaysSo) {
  const ir::Graph g = load_graph(loop_model(2));
  const std::vector<Tensor> out =
      run(g, {Tensor::from<int64_t>({}, {100}), Tensor::from<float>({2}, {1, 1})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{12, 22}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 2}));
}

TEST(ControlFlow, LoopOfZeroIterationsGivesEmptyScanOutputs) {
  const ir::Graph g = load_graph(loop_model());
  const std::vector<Tensor> out =
      run(g, {Tensor::from<int64_t>({}, {0}), Tensor::from<float>({2}, {1, 2})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{10, 20}));
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{0, 2}));
}

TEST(ControlFlow, LoopPastTheTimeoutStopsNamingTheNode) {
  const ir::Graph g = load_graph(loop_model());
  SessionOptions options;
  options.timeout_seconds = 0.05;
  expect_error(
      [&] {
        run(g, {Tensor::from<int64_t>({}, {int64_t(1) << 60}), Tensor::from<float>({2}, {1, 2})},
            options);
      },
      {"Loop node 'repeat'", "--timeout of 0.05 s"});
}

TEST(ControlFlow, CliTimeoutStopsALongLoopWithExitCode2) {
  ModelBuilder m = loop_model();
  // M as a huge constant, so that only x is bound (randomly) by the CLI.
  m.graph().mutable_input()->DeleteSubrange(0, 1);
  m.add_initializer("M", Tensor::from<int64_t>({}, {int64_t(1) << 60}));
  TempDir dir;
  const std::string path = m.save(dir.path("loop.onnx"));
  for (const char* command : {"run", "profile"})
    expect_bad_input(run_strata(dir, {command, path, "--timeout", "0.2"}),
                     {"Loop node 'repeat'", "--timeout of 0.2 s"});
  expect_bad_input(run_strata(dir, {"run", path, "--timeout", "-1"}), {"--timeout"});
}

TEST(ControlFlow, ScanSlicesAlongItsAxesAndDirections) {
  const Tensor rows = Tensor::from<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out = run(load_graph(scan_model(0, 0)), {rows});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{9, 12}));
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{1, 2, 4, 6, 9, 12}));
  out = run(load_graph(scan_model(0, 1)), {rows});
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{5, 6, 8, 10, 9, 12}));
  const Tensor cols = Tensor::from<float>({2, 3}, {1, 3, 5, 2, 4, 6});  // rows' transpose
  out = run(load_graph(scan_model(1, 0, 1)), {cols});
  EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{1, 4, 9, 2, 6, 12}));
  // The shape rule knows the scan length from the input.
  const ir::Graph g = load_graph(scan_model(0, 0));
  EXPECT_EQ(g.values[size_t(g.find_value("ys"))].shape, Shape::of({3, 2}));
}

// Scan before opset 9: a batch axis first, the scan axis next, sequence_lens omitted.
TEST(ControlFlow, ScanOpset8RunsOncePerBatchItem) {
  ModelBuilder b = body();
  b.add_input("s_in", DType::kF32, {2});
  b.add_input("row", DType::kF32, {2});
  b.add_node("Add", {"s_in", "row"}, {"s_out"}, "body_add");
  b.add_node("Identity", {"s_out"}, {"y"}, "body_id");
  b.add_output("s_out", DType::kF32, {2});
  b.add_output("y", DType::kF32, {2});
  ModelBuilder m(8);
  m.add_input("s0", DType::kF32, {2, 2});
  m.add_input("x", DType::kF32, {2, 3, 2});
  auto& node = m.add_node("Scan", {"", "s0", "x"}, {"s", "ys"}, "scan8");
  set_attr(node, "body", b.graph());
  set_attr(node, "num_scan_inputs", int64_t(1));
  set_attr(node, "directions", std::vector<int64_t>{1});  // from the end
  m.add_output("s", DType::kF32, {2, 2});
  m.add_output("ys", DType::kF32, {2, 3, 2});
  const ir::Graph g = load_graph(m);
  EXPECT_EQ(g.values[size_t(g.find_value("ys"))].shape, Shape::of({2, 3, 2}));
  const std::vector<Tensor> out =
      run(g, {Tensor::from<float>({2, 2}, {0, 0, 100, 100}),
              Tensor::from<float>({2, 3, 2}, {1, 2, 3, 4, 5, 6, 1, 1, 1, 1, 1, 1})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{9, 12, 103, 103}));
  EXPECT_EQ(floats_of(out[1]),
            (std::vector<float>{5, 6, 8, 10, 9, 12, 101, 101, 102, 102, 103, 103}));
}

// The cost rules: the scan length (or a constant trip count) times one iteration of the body.
std::optional<ops::Cost> node_cost(const ir::Graph& g, size_t n) {
  const ir::Node& node = g.nodes[n];
  std::vector<ops::Meta> in_metas, out_metas;
  for (ir::ValueId id : node.inputs) {
    const ir::Value& v = g.values[size_t(id)];
    in_metas.push_back({v.dtype, v.shape, v.constant, v.is_initializer});
  }
  for (ir::ValueId id : node.outputs)
    out_metas.push_back({g.values[size_t(id)].dtype, g.values[size_t(id)].shape, nullptr});
  std::vector<const ops::Meta*> in;
  for (const ops::Meta& m : in_metas) in.push_back(&m);
  return passes::make_op(g, node)->cost(ops::CostContext(in, out_metas));
}

TEST(ControlFlow, CostIsOneIterationTimesTheTripCount) {
  const std::optional<ops::Cost> scan = node_cost(load_graph(scan_model(0, 0)), 0);
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->flops, 3 * 2);  // 3 rows, one Add of 2 elements each
  ModelBuilder m = loop_model();
  m.graph().mutable_input()->DeleteSubrange(0, 1);
  m.add_initializer("M", Tensor::from<int64_t>({}, {5}));
  const std::optional<ops::Cost> loop = node_cost(load_graph(m), 0);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->flops, 5 * 2);
  EXPECT_FALSE(node_cost(load_graph(loop_model()), 0));  // M only known while running
}

// A Loop whose body holds an If whose branch reads the main graph's x: captures pass through
// two levels.
TEST(ControlFlow, NestedBodiesReadValuesTwoLevelsUp) {
  ModelBuilder m = loop_model();
  onnx::GraphProto& body_g = *m.graph().mutable_node(0)->mutable_attribute(0)->mutable_g();
  // Replace the body's Add by If(cond_in) { acc_in + x } else { acc_in }.
  ModelBuilder then_b = body();
  then_b.add_node("Add", {"acc_in", "x"}, {"t"}, "inner_add");
  then_b.add_output("t", DType::kF32, {2});
  ModelBuilder else_b = body();
  else_b.add_node("Identity", {"acc_in"}, {"e"}, "inner_id");
  else_b.add_output("e", DType::kF32, {2});
  onnx::NodeProto* add = body_g.mutable_node(0);
  add->Clear();
  add->set_op_type("If");
  add->set_name("inner_if");
  add->add_input("cond_in");
  add->add_output("acc_out");
  set_attr(*add, "then_branch", then_b.graph());
  set_attr(*add, "else_branch", else_b.graph());
  const ir::Graph g = load_graph(m);
  EXPECT_EQ(g.nodes[0].implicit_inputs, 1u);  // x, for the If inside the body
  const std::vector<Tensor> out =
      run(g, {Tensor::from<int64_t>({}, {2}), Tensor::from<float>({2}, {1, 2})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{12, 24}));
}

// ---- Bad bodies and attributes: one sentence naming the node ----

TEST(ControlFlowErrors, IfBranchWithTheWrongNumberOfOutputs) {
  ModelBuilder m = if_model();
  auto* then_g = m.graph().mutable_node(0)->mutable_attribute(0)->mutable_g();
  *then_g->add_output() = then_g->output(0);
  TempDir dir;
  expect_error([&] { runtime::load_model(m.save(dir.path("m.onnx"))); },
               {"If node 'choose'", "then_branch has 2 outputs but the node has 1"});
}

TEST(ControlFlowErrors, LoopBodyWithTheWrongNumberOfInputs) {
  ModelBuilder m = loop_model();
  auto* body_g = m.graph().mutable_node(0)->mutable_attribute(0)->mutable_g();
  *body_g->add_input() = body_g->input(2);
  body_g->mutable_input(3)->set_name("extra");
  TempDir dir;
  expect_error([&] { runtime::load_model(m.save(dir.path("m.onnx"))); },
               {"Loop node 'repeat'", "body takes 4 inputs but should take 3"});
}

// An omitted (unnamed) input where the op requires one; the fuzzer's SequenceMap read it while
// running (tests/data/fuzz-regressions/fuzz_graph/sequence-map-omitted-input.bin).
TEST(ControlFlowErrors, OmittedRequiredInputsAreRefusedAtLoad) {
  struct Case {
    ModelBuilder model;
    int input;
    std::string node;
  };
  const Case cases[] = {{if_model(), 0, "If node 'choose'"},
                        {loop_model(), 2, "Loop node 'repeat'"},
                        {scan_model(0, 0), 0, "Scan node 'scan'"}};
  for (const Case& c : cases) {
    ModelBuilder m = c.model;
    m.graph().mutable_node(0)->set_input(c.input, "");
    TempDir dir;
    expect_error([&] { runtime::load_model(m.save(dir.path("m.onnx"))); },
                 {c.node, "input " + std::to_string(c.input) + " is omitted, but it is required"});
  }
  ModelBuilder loop = loop_model();  // M and cond may be omitted
  loop.graph().mutable_node(0)->set_input(0, "");
  TempDir dir;
  EXPECT_NO_THROW(runtime::load_model(loop.save(dir.path("m.onnx"))));
}

// M whose shape is known only while running (a Reshape to a shape given at run time) reaches the
// Loop unchecked by the shape rule; the runner checks it holds one value (the fuzzer's empty M,
// tests/data/fuzz-regressions/fuzz_graph/loop-empty-trip-count.bin, was read past its end).
TEST(ControlFlowErrors, ATripCountOfRunTimeShapeMustHoldOneValue) {
  ModelBuilder m = loop_model();
  onnx::GraphProto& g = m.graph();
  m.add_input("trips", DType::kI64, {"N"});
  m.add_input("trips_shape", DType::kI64, {1});
  m.add_node("Reshape", {"trips", "trips_shape"}, {"M"}, "shape_trips");
  g.mutable_node()->SwapElements(0, g.node_size() - 1);  // the Reshape before the Loop
  g.mutable_input()->DeleteSubrange(0, 1);               // M is the Reshape's now
  const ir::Graph graph = load_graph(m);
  const Tensor x = Tensor::from<float>({2}, {1, 2});
  for (const int64_t count : {0, 2}) {
    const Tensor trips = Tensor::zeros(DType::kI64, {count});
    expect_error(
        [&] {
          run(graph, {x, trips, Tensor::from<int64_t>({1}, {count})});
        },
        {"Loop node 'repeat'", "input 'M' must hold one value, not " + std::to_string(count)});
  }
  const Tensor three = Tensor::from<int64_t>({1}, {3});
  EXPECT_EQ(floats_of(run(graph, {x, three, Tensor::from<int64_t>({1}, {1})})[0]),
            (std::vector<float>{13, 26}));
}

TEST(ControlFlowErrors, ScanAxisOutOfRange) {
  TempDir dir;
  expect_bad_input(run_strata(dir, {"run", scan_model(2, 0).save(dir.path("cli.onnx"))}),
                   {"Scan node 'scan'", "scan_input_axes[0] is 2, out of range"});
  expect_error([&] { runtime::load_model(scan_model(2, 0).save(dir.path("m.onnx"))); },
               {"Scan node 'scan'", "scan_input_axes[0] is 2, out of range"});
  expect_error([&] { runtime::load_model(scan_model(0, 0, 3).save(dir.path("m2.onnx"))); },
               {"Scan node 'scan'", "scan_output_axes[0] is 3, out of range"});
}

// If nested `depth` deep: each then-branch holds the next If, each else-branch returns x.
ModelBuilder nested_ifs(int depth) {
  ModelBuilder leaf = body();
  leaf.add_node("Identity", {"x"}, {"r"}, "leaf");
  leaf.add_output("r", DType::kF32, {1});
  ModelBuilder inner = leaf;
  for (int d = depth; d >= 1; --d) {
    ModelBuilder level = d == 1 ? ModelBuilder() : body();
    if (d == 1) {
      level.add_input("c", DType::kBool, {});
      level.add_input("x", DType::kF32, {1});
    }
    auto& node = level.add_node("If", {"c"}, {"r"}, "if_" + std::to_string(d));
    set_attr(node, "then_branch", inner.graph());
    set_attr(node, "else_branch", leaf.graph());
    level.add_output("r", DType::kF32, {1});
    inner = std::move(level);
  }
  return inner;
}

TEST(ControlFlowErrors, NestingDeeperThanTheLimitIsRefusedNamingTheDepth) {
  TempDir dir;
  const ir::Graph ok = load_graph(nested_ifs(5));
  const std::vector<Tensor> out =
      run(ok, {Tensor::from<bool>({}, {true}), Tensor::from<float>({1}, {7})});
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{7}));
  const std::string path = nested_ifs(ir::kMaxSubgraphDepth + 1).save(dir.path("deep.onnx"));
  expect_error([&] { onnx_import::load_model(path); },
               {"nests subgraphs 65 deep, more than the 64 strata accepts", "If node 'if_"});
  // Deeper than protobuf's own recursion limit allows (about 33 levels): still this sentence, not
  // "not a valid ONNX model".
  const std::string deeper = nested_ifs(300).save(dir.path("deeper.onnx"));
  expect_error([&] { onnx_import::load_model(deeper); },
               {"nests subgraphs 65 deep, more than the 64 strata accepts"});
}

}  // namespace
}  // namespace strata::test
