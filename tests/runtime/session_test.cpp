// Session: models built with the ONNX builder, loaded from disk, prepared and run.
#include "runtime/session.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "runtime/model.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"
#include "testutil/run_util.h"

namespace strata::test {
namespace {

using runtime::InputSpec;
using runtime::Session;
using runtime::SessionOptions;

// y = Relu(x @ w + b) with x [2,3], w [3,2], b [2]; z = Neg(y) as a second output.
ModelBuilder dense_model() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  m.add_initializer("w", Tensor::from<float>({3, 2}, {1, -1, 2, 0, -1, 3}));
  m.add_float_initializer("b", {2}, {0.5f, -4});
  m.add_node("MatMul", {"x", "w"}, {"xw"}, "matmul");
  m.add_node("Add", {"xw", "b"}, {"pre"}, "add");
  m.add_node("Relu", {"pre"}, {"y"}, "relu");
  m.add_node("Neg", {"y"}, {"z"}, "neg");
  m.add_output("y", DType::kF32, {2, 2});
  m.add_output("z", DType::kF32, {2, 2});
  return m;
}

std::vector<float> dense_reference(const std::vector<float>& x) {
  const float w[3][2] = {{1, -1}, {2, 0}, {-1, 3}};
  const float b[2] = {0.5f, -4};
  std::vector<float> y(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float s = b[j];
      for (int k = 0; k < 3; ++k) s += x[size_t(i * 3 + k)] * w[k][j];
      y[size_t(i * 2 + j)] = std::max(s, 0.0f);
    }
  return y;
}

TEST(Session, OutputsAreCorrectOverSeveralRuns) {
  const ir::Graph g = load_graph(dense_model());
  Session session(g, {{DType::kF32, {2, 3}}}, {});
  EXPECT_EQ(session.num_outputs(), 2u);
  EXPECT_EQ(session.steps().size(), 4u);
  EXPECT_EQ(session.stats().folded_nodes, 0u);
  EXPECT_EQ(session.stats().dynamic_nodes, 0u);
  EXPECT_GE(session.stats().arena_bytes, session.stats().lower_bound_bytes);
  EXPECT_GT(session.stats().lower_bound_bytes, 0);
  EXPECT_EQ(session.stats().constant_bytes, 6 * 4 + 2 * 4);

  const std::vector<std::vector<float>> xs = {
      {1, 2, 3, 4, 5, 6}, {-1, 0, 2, 0.5f, 8, -3}, {0, 0, 0, 0, 0, 0}, {1, 2, 3, 4, 5, 6}};
  for (const std::vector<float>& x : xs) {
    const Tensor input = Tensor::from<float>({2, 3}, std::span<const float>(x));
    session.run({&input});
    const std::vector<float> want = dense_reference(x);
    EXPECT_EQ(session.output(0).shape(), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(floats_of(session.output(0)), want);
    std::vector<float> neg;
    for (float v : want) neg.push_back(-v);
    EXPECT_EQ(floats_of(session.output(1)), neg);
  }
}

TEST(Session, LongChainReusesTheArenaWithoutClobbering) {
  // x → Relu → Neg → Abs → Neg → Abs → Add(x) ... each intermediate dies after one step.
  ModelBuilder m;
  m.add_input("x", DType::kF32, {64});
  std::string prev = "x";
  const char* ops[] = {"Relu", "Neg", "Abs", "Neg", "Abs", "Neg", "Abs"};
  for (int i = 0; i < 7; ++i) {
    const std::string out = "v" + std::to_string(i);
    m.add_node(ops[i], {prev}, {out}, "n" + std::to_string(i));
    prev = out;
  }
  m.add_node("Add", {prev, "x"}, {"y"}, "add");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {64}}}, {});
  // Two 256-byte buffers suffice for the chain (plus the output, live to the end).
  EXPECT_LE(session.stats().arena_bytes, 3 * 256);
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[size_t(i)] = float(i - 32);
  const Tensor input = Tensor::from<float>({64}, std::span<const float>(x));
  for (int run = 0; run < 2; ++run) {
    session.run({&input});
    for (int i = 0; i < 64; ++i)
      EXPECT_EQ(session.output(0).data<float>()[i], std::max(x[size_t(i)], 0.0f) + x[size_t(i)])
          << i;
  }
}

TEST(Session, GraphInputAndInitializerAsOutputs) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2});
  m.add_initializer("c", Tensor::from<float>({2}, {7, 8}));
  m.add_node("Add", {"x", "c"}, {"y"}, "add");
  m.add_output("y");
  m.add_output("x");
  m.add_output("c");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {2}}}, {});
  const Tensor input = Tensor::from<float>({2}, {1, 2});
  session.run({&input});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{8, 10}));
  EXPECT_EQ(floats_of(session.output(1)), (std::vector<float>{1, 2}));
  EXPECT_EQ(floats_of(session.output(2)), (std::vector<float>{7, 8}));
}

TEST(Session, FoldsShapeComputation) {
  // Reshape(x, Concat(Gather(Shape(x), [0]), [-1])): x [2,3,4] becomes [2,12].
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3, 4});
  m.add_int64_initializer("first", {1}, {0});
  m.add_int64_initializer("minus_one", {1}, {-1});
  m.add_node("Shape", {"x"}, {"shape"}, "shape");
  m.add_node("Gather", {"shape", "first"}, {"batch"}, "gather");
  set_attr(m.add_node("Concat", {"batch", "minus_one"}, {"target"}, "concat"), "axis", int64_t(0));
  m.add_node("Reshape", {"x", "target"}, {"y"}, "reshape");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {2, 3, 4}}}, {});
  EXPECT_EQ(session.stats().folded_nodes, 3u);
  EXPECT_EQ(session.stats().dynamic_nodes, 0u);
  ASSERT_EQ(session.steps().size(), 1u);
  EXPECT_EQ(g.nodes[session.steps()[0].node_index].op_type, "Reshape");
  EXPECT_FALSE(session.steps()[0].dynamic);

  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[size_t(i)] = float(i) * 0.5f;
  const Tensor input = Tensor::from<float>({2, 3, 4}, std::span<const float>(x));
  session.run({&input});
  EXPECT_EQ(session.output(0).shape(), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(floats_of(session.output(0)), x);
}

TEST(Session, FoldsConstantNodesAndConstantSubgraphs) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {3});
  m.add_constant("c", Tensor::from<float>({3}, {1, -2, 3}));
  m.add_node("Abs", {"c"}, {"abs_c"}, "abs");  // constant input: folded
  m.add_node("Mul", {"x", "abs_c"}, {"y"}, "mul");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {3}}}, {});
  EXPECT_EQ(session.stats().folded_nodes, 2u);
  EXPECT_EQ(session.steps().size(), 1u);
  const Tensor input = Tensor::from<float>({3}, {2, 2, 2});
  session.run({&input});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{2, 4, 6}));
}

// y = Relu(Reshape(x, shape)) where `shape` is a graph input: shapes known only at run time.
ModelBuilder dynamic_reshape_model() {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 6});
  m.add_input("shape", DType::kI64, {2});
  m.add_node("Reshape", {"x", "shape"}, {"r"}, "reshape");
  m.add_node("Relu", {"r"}, {"y"}, "relu");
  m.add_output("y");
  return m;
}

TEST(Session, DynamicNodeResolvesShapesAtRunTime) {
  const ir::Graph g = load_graph(dynamic_reshape_model());
  Session session(g, {{DType::kF32, {2, 6}}, {DType::kI64, {2}}}, {});
  EXPECT_EQ(session.stats().dynamic_nodes, 2u);
  ASSERT_EQ(session.steps().size(), 2u);
  EXPECT_TRUE(session.steps()[0].dynamic);
  EXPECT_TRUE(session.steps()[1].dynamic);

  std::vector<float> x(12), relu_x(12);
  for (int i = 0; i < 12; ++i) {
    x[size_t(i)] = float(i % 2 ? i : -i);
    relu_x[size_t(i)] = std::max(x[size_t(i)], 0.0f);
  }
  const Tensor input = Tensor::from<float>({2, 6}, std::span<const float>(x));
  const std::vector<std::vector<int64_t>> shapes = {{3, 4}, {4, 3}, {-1, 2}, {3, 4}};
  const std::vector<std::vector<int64_t>> expected = {{3, 4}, {4, 3}, {6, 2}, {3, 4}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Tensor shape = Tensor::from<int64_t>({2}, std::span<const int64_t>(shapes[i]));
    session.run({&input, &shape});
    EXPECT_EQ(session.output(0).shape(), expected[i]);
    EXPECT_EQ(floats_of(session.output(0)), relu_x);
  }
}

TEST(Session, DynamicNodeWithAnImpossibleShapeNamesTheNode) {
  const ir::Graph g = load_graph(dynamic_reshape_model());
  Session session(g, {{DType::kF32, {2, 6}}, {DType::kI64, {2}}}, {});
  const Tensor input = Tensor::zeros(DType::kF32, {2, 6});
  const Tensor bad = Tensor::from<int64_t>({2}, {5, 5});
  expect_error([&] { session.run({&input, &bad}); }, {"Reshape node 'reshape'"});
  // The session still works afterwards.
  const Tensor good = Tensor::from<int64_t>({2}, {12, 1});
  session.run({&input, &good});
  EXPECT_EQ(session.output(0).shape(), (std::vector<int64_t>{12, 1}));
}

TEST(Session, DynamicOutputOverTheMemoryLimit) {
  ModelBuilder m;
  m.add_input("shape", DType::kI64, {1});
  m.add_node("ConstantOfShape", {"shape"}, {"y"}, "fill");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  SessionOptions options;
  options.max_memory_bytes = 4096;
  Session session(g, {{DType::kI64, {1}}}, options);
  const Tensor small = Tensor::from<int64_t>({1}, {16});
  session.run({&small});
  EXPECT_EQ(session.output(0).numel(), 16);
  const Tensor huge = Tensor::from<int64_t>({1}, {int64_t(1) << 30});
  expect_error([&] { session.run({&huge}); }, {"ConstantOfShape node 'fill'", "4096"});
}

TEST(Session, OmittedOptionalInputsAndOutputs) {
  // Clip with min omitted (max given); TopK with its values output omitted.
  ModelBuilder m;
  m.add_input("x", DType::kF32, {4});
  m.add_initializer("max", Tensor::from<float>({}, {2}));
  m.add_int64_initializer("k", {1}, {2});
  m.add_node("Clip", {"x", "", "max"}, {"clipped"}, "clip");
  m.add_node("TopK", {"clipped", "k"}, {"", "indices"}, "topk");
  m.add_output("clipped");
  m.add_output("indices");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {4}}}, {});
  const Tensor x = Tensor::from<float>({4}, {-5, 3, 1.5f, 0});
  session.run({&x});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{-5, 2, 1.5f, 0}));
  EXPECT_EQ(session.output(1).to_int64(), (std::vector<int64_t>{1, 2}));
}

TEST(Session, FoldedValueAsGraphOutputAndUnusedInput) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 5});
  m.add_input("unused", DType::kF32, {3});
  m.add_node("Shape", {"x"}, {"shape"}, "shape");
  m.add_output("shape");
  m.add_output("shape");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {2, 5}}, {DType::kF32, {3}}}, {});
  EXPECT_EQ(session.steps().size(), 0u);
  EXPECT_EQ(session.stats().folded_nodes, 1u);
  const Tensor x = Tensor::zeros(DType::kF32, {2, 5});
  const Tensor unused = Tensor::zeros(DType::kF32, {3});
  session.run({&x, &unused});
  EXPECT_EQ(session.output(0).to_int64(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(session.output(1).to_int64(), (std::vector<int64_t>{2, 5}));
}

TEST(Session, EmptyTensors) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {"N", 3});
  m.add_node("Relu", {"x"}, {"y"}, "relu");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {0, 3}}}, {});
  const Tensor x = Tensor::zeros(DType::kF32, {0, 3});
  session.run({&x});
  EXPECT_EQ(session.output(0).shape(), (std::vector<int64_t>{0, 3}));
}

TEST(Session, SeveralThreads) {
  const ir::Graph g = load_graph(dense_model());
  SessionOptions options;
  options.threads = 2;
  Session session(g, {{DType::kF32, {2, 3}}}, options);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const Tensor input = Tensor::from<float>({2, 3}, std::span<const float>(x));
  session.run({&input});
  EXPECT_EQ(floats_of(session.output(0)), dense_reference(x));
}

// ---- Binding errors ----

TEST(SessionBind, WrongDtypeNamesTheInput) {
  const ir::Graph g = load_graph(dense_model());
  expect_error([&] { Session(g, {{DType::kI64, {2, 3}}}, {}); }, {"'x'", "int64", "float32"});
}

TEST(SessionBind, WrongShapeNamesTheInput) {
  const ir::Graph g = load_graph(dense_model());
  expect_error([&] { Session(g, {{DType::kF32, {2, 4}}}, {}); }, {"'x'", "[2,4]", "[2,3]"});
  expect_error([&] { Session(g, {{DType::kF32, {6}}}, {}); }, {"'x'", "rank 2"});
}

TEST(SessionBind, WrongNumberOfInputs) {
  const ir::Graph g = load_graph(dense_model());
  expect_error([&] { Session(g, {}, {}); }, {"1 input", "0"});
}

TEST(SessionBind, WrongTensorAtRunNamesTheInput) {
  const ir::Graph g = load_graph(dense_model());
  Session session(g, {{DType::kF32, {2, 3}}}, {});
  const Tensor wrong_shape = Tensor::zeros(DType::kF32, {3, 2});
  expect_error([&] { session.run({&wrong_shape}); }, {"'x'", "[3,2]", "[2,3]"});
  const Tensor wrong_dtype = Tensor::zeros(DType::kF64, {2, 3});
  expect_error([&] { session.run({&wrong_dtype}); }, {"'x'", "float64"});
  expect_error([&] { session.run({}); }, {"1 input"});
}

// a [N,3] + b [N,3]
ModelBuilder symbolic_model() {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {"N", 3});
  m.add_input("b", DType::kF32, {"N", 3});
  m.add_node("Add", {"a", "b"}, {"y"}, "add");
  m.add_output("y");
  return m;
}

TEST(SessionBind, SymbolicDimBoundInconsistently) {
  const ir::Graph g = load_graph(symbolic_model());
  expect_error(
      [&] {
        Session(g, {{DType::kF32, {2, 3}}, {DType::kF32, {4, 3}}}, {});
      },
      {"'b'", "'N'", "4", "2"});
}

TEST(SessionBind, SymbolicDimBoundConsistently) {
  const ir::Graph g = load_graph(symbolic_model());
  Session session(g, {{DType::kF32, {2, 3}}, {DType::kF32, {2, 3}}}, {});
  EXPECT_EQ(session.stats().dynamic_nodes, 0u);
  const Tensor a = Tensor::from<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Tensor::from<float>({2, 3}, {10, 20, 30, 40, 50, 60});
  session.run({&a, &b});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{11, 22, 33, 44, 55, 66}));
}

TEST(SessionBind, AnonymousDimsNeedNotAgree) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {DimSpec::unknown()});
  m.add_input("b", DType::kF32, {DimSpec::unknown()});
  set_attr(m.add_node("Concat", {"a", "b"}, {"y"}, "concat"), "axis", int64_t(0));
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kF32, {1}}, {DType::kF32, {2}}}, {});
  const Tensor a = Tensor::from<float>({1}, {1});
  const Tensor b = Tensor::from<float>({2}, {2, 3});
  session.run({&a, &b});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{1, 2, 3}));
}

TEST(SessionMemory, LimitTooSmallNamesTheLimit) {
  const ir::Graph g = load_graph(dense_model());
  SessionOptions options;
  options.max_memory_bytes = 100;
  expect_error(
      [&] {
        Session(g, {{DType::kF32, {2, 3}}}, options);
      },
      {"memory limit", "100 bytes"});
}

TEST(SessionMemory, ConstantTooLargeToFoldIsStillRefused) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1});
  m.add_int64_initializer("big", {1}, {100000});
  m.add_node("ConstantOfShape", {"big"}, {"filled"}, "fill");
  m.add_node("Add", {"x", "filled"}, {"y"}, "add");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  SessionOptions options;
  options.max_memory_bytes = 1000;
  expect_error([&] { Session(g, {{DType::kF32, {1}}}, options); }, {"memory limit", "1000 bytes"});
  // Under the default limit the 400 KB constant is folded once at prepare.
  Session session(g, {{DType::kF32, {1}}}, {});
  EXPECT_EQ(session.stats().folded_nodes, 1u);
  EXPECT_GE(session.stats().constant_bytes, 400000);
  const Tensor x = Tensor::from<float>({1}, {2});
  session.run({&x});
  EXPECT_EQ(session.output(0).numel(), 100000);
  EXPECT_EQ(session.output(0).data<float>()[99999], 2);
}

TEST(SessionMemory, LimitLargeEnoughRuns) {
  const ir::Graph g = load_graph(dense_model());
  SessionOptions options;
  options.max_memory_bytes = 4096;
  Session session(g, {{DType::kF32, {2, 3}}}, options);
  EXPECT_LE(session.stats().arena_bytes + session.stats().constant_bytes, 4096);
}

TEST(SessionErrors, KernelErrorAtRunTimeNamesTheNode) {
  ModelBuilder m;
  m.add_input("indices", DType::kI64, {2});
  m.add_initializer("table", Tensor::from<float>({5}, {10, 11, 12, 13, 14}));
  m.add_node("Gather", {"table", "indices"}, {"y"}, "lookup");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  Session session(g, {{DType::kI64, {2}}}, {});
  const Tensor good = Tensor::from<int64_t>({2}, {4, -5});
  session.run({&good});
  EXPECT_EQ(floats_of(session.output(0)), (std::vector<float>{14, 10}));
  const Tensor bad = Tensor::from<int64_t>({2}, {0, 7});
  expect_error([&] { session.run({&bad}); }, {"Gather node 'lookup'", "7"});
}

TEST(SessionErrors, BadAttributeIsRefusedAtLoadNamingTheNode) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {2, 3});
  set_attr(m.add_node("Softmax", {"x"}, {"y"}, "soft"), "axis", int64_t(5));
  m.add_output("y");
  expect_error([&] { load_graph(m); }, {"Softmax node 'soft'", "axis"});
}

TEST(SessionErrors, ShapesIncompatibleOnlyOnceBoundNameTheNode) {
  ModelBuilder m;
  m.add_input("a", DType::kF32, {"N"});
  m.add_input("b", DType::kF32, {"M"});
  m.add_node("Add", {"a", "b"}, {"y"}, "adder");
  m.add_output("y");
  const ir::Graph g = load_graph(m);
  expect_error(
      [&] {
        Session(g, {{DType::kF32, {2}}, {DType::kF32, {3}}}, {});
      },
      {"Add node 'adder'"});
  Session ok(g, {{DType::kF32, {3}}, {DType::kF32, {1}}}, {});
  const Tensor a = Tensor::from<float>({3}, {1, 2, 3});
  const Tensor b = Tensor::from<float>({1}, {10});
  ok.run({&a, &b});
  EXPECT_EQ(floats_of(ok.output(0)), (std::vector<float>{11, 12, 13}));
}

// ---- Hooks ----

class RecordingHooks : public runtime::RunHooks {
 public:
  void before_node(size_t step) override { events.push_back("before " + std::to_string(step)); }
  void after_node(size_t step) override { events.push_back("after " + std::to_string(step)); }
  std::vector<std::string> events;
};

TEST(SessionHooks, CalledOnceBeforeAndAfterEachStepInOrder) {
  const ir::Graph g = load_graph(dense_model());
  Session session(g, {{DType::kF32, {2, 3}}}, {});
  RecordingHooks hooks;
  session.set_hooks(&hooks);
  const Tensor input = Tensor::zeros(DType::kF32, {2, 3});
  session.run({&input});
  session.run({&input});
  std::vector<std::string> want;
  for (int run = 0; run < 2; ++run)
    for (size_t s = 0; s < session.steps().size(); ++s) {
      want.push_back("before " + std::to_string(s));
      want.push_back("after " + std::to_string(s));
    }
  EXPECT_EQ(hooks.events, want);
  EXPECT_EQ(want.size(), 2 * 2 * 4u);

  session.set_hooks(nullptr);
  session.run({&input});
  EXPECT_EQ(hooks.events.size(), want.size());
}

TEST(SessionHooks, StepsFollowTheExecutionOrder) {
  const ir::Graph g = load_graph(dense_model());
  Session session(g, {{DType::kF32, {2, 3}}}, {});
  std::vector<std::string> order;
  for (const runtime::StepInfo& s : session.steps()) order.push_back(g.nodes[s.node_index].name);
  EXPECT_EQ(order, (std::vector<std::string>{"matmul", "add", "relu", "neg"}));
  for (const runtime::StepInfo& s : session.steps()) {
    EXPECT_FALSE(s.kernel.empty());
    EXPECT_FALSE(s.reason.empty());
  }
}

}  // namespace
}  // namespace strata::test
