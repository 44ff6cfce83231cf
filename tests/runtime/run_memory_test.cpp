// --max-memory while running (core/run_memory.h): data-dependent outputs, lists and scan outputs
// are charged against one budget per run before they are allocated; and the loader's node limit.
#include "core/run_memory.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "onnx/loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "testutil/cli_util.h"
#include "testutil/expect_error.h"
#include "testutil/onnx_builder.h"
#include "testutil/run_util.h"

namespace strata::test {
namespace {

using runtime::Session;
using runtime::SessionOptions;

void run_once(const ir::Graph& g, const std::vector<Tensor>& inputs, SessionOptions options) {
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
    ptrs.push_back(&t);
  }
  Session session(g, specs, options);
  session.run(ptrs);
}

// Loop `trips` times; each iteration inserts x (1000 floats) into the sequence it carries
// (`scan` false) or gives x as a scan output (`scan` true).
ModelBuilder growing_loop(int64_t trips, bool scan) {
  ModelBuilder b;
  b.add_input("i", DType::kI64, {});
  b.add_input("cond", DType::kBool, {});
  b.add_node("Identity", {"cond"}, {"cond_out"}, "keep_going");
  b.add_output("cond_out", DType::kBool, {});
  if (scan) {
    b.add_node("Identity", {"x"}, {"slice"}, "slice");
    b.add_output("slice", DType::kF32, {1000});
  } else {
    b.graph().add_input()->set_name("seq");  // typed by the Loop's input
    b.add_node("SequenceInsert", {"seq", "x"}, {"seq_out"}, "insert");
    b.add_output("seq_out");
  }
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1000});
  m.add_initializer("trips", Tensor::from<int64_t>({}, {trips}));
  std::vector<std::string> loop_inputs = {"trips", ""};
  if (!scan) {
    set_attr(m.add_node("SequenceEmpty", {}, {"empty"}, "empty"), "dtype", int64_t(1));
    loop_inputs.push_back("empty");
  }
  set_attr(m.add_node("Loop", loop_inputs, {"grown"}, "grow"), "body", b.graph());
  m.add_output("grown");
  return m;
}

TEST(RunMemory, ALoopGrowingASequenceStopsAtTheLimit) {
  const ir::Graph g = load_graph(growing_loop(1'000'000'000, false));
  SessionOptions options;
  options.max_memory_bytes = 1 << 20;
  expect_error([&] { run_once(g, {Tensor::zeros(DType::kF32, {1000})}, options); },
               {"SequenceInsert node 'insert'", "the sequence of output 0 needs",
                "memory limit of 1048576 bytes (--max-memory)"});
  // Ten iterations fit: 40 KB.
  const ir::Graph few = load_graph(growing_loop(10, false));
  run_once(few, {Tensor::zeros(DType::kF32, {1000})}, options);
}

TEST(RunMemory, ScanOutputsOfALoopStopAtTheLimit) {
  const ir::Graph g = load_graph(growing_loop(1'000'000'000, true));
  SessionOptions options;
  options.max_memory_bytes = 1 << 20;
  expect_error([&] { run_once(g, {Tensor::zeros(DType::kF32, {1000})}, options); },
               {"Loop node 'grow'", "scan output 0 needs", "memory limit of 1048576 bytes"});
}

TEST(RunMemory, SplittingIntoTwoToTheFortyEmptyPiecesIsRefusedBeforeAllocating) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {int64_t(1) << 40, 0});
  m.add_node("SplitToSequence", {"x"}, {"pieces"}, "split");
  m.add_output("pieces");
  const ir::Graph g = load_graph(m);
  expect_error(
      [&] {
        run_once(g, {Tensor::zeros(DType::kF32, {int64_t(1) << 40, 0})}, {});
      },
      {"SplitToSequence node 'split'", "the sequence of output 0 needs", "over the memory limit"});
}

// Two NonZero outputs of 8000 bytes each: one fits in 12000 bytes beyond the planned memory,
// both do not, though each alone would.
TEST(RunMemory, DataDependentOutputsShareOneBudget) {
  ModelBuilder m;
  m.add_input("x", DType::kBool, {1000});
  m.add_node("NonZero", {"x"}, {"a"}, "first");
  m.add_node("Not", {"x"}, {"not_x"}, "flip");
  m.add_node("Not", {"not_x"}, {"x_again"}, "flip_back");
  m.add_node("NonZero", {"x_again"}, {"b"}, "second");
  m.add_output("a");
  m.add_output("b");
  const ir::Graph g = load_graph(m);
  std::vector<uint8_t> ones(1000, 1);
  Tensor x = Tensor::zeros(DType::kBool, {1000});
  std::memcpy(x.raw(), ones.data(), ones.size());
  const std::vector<runtime::InputSpec> specs = {{DType::kBool, {1000}}};
  const runtime::PrepareStats planned = Session(g, specs, {}).stats();
  SessionOptions options;
  options.max_memory_bytes =
      planned.arena_bytes + planned.constant_bytes + planned.packed_bytes + 12000;
  expect_error([&] { run_once(g, {x}, options); },
               {"NonZero node '", "output 0 needs 8000 bytes", "the 8000 this run already holds"});
  options.max_memory_bytes += 4000;
  run_once(g, {x}, options);
}

TEST(RunMemory, OutsideARunNothingIsCharged) {
  charge_run_memory(int64_t(1) << 62, "output", 0);  // no scope: prepare-time code paths
  RunMemoryScope scope(100, 40);
  scope.charge(60, "output", 0);
  expect_error([&] { scope.charge(1, "output", 1); },
               {"output 1 needs 1 bytes", "memory limit of 100 bytes", "40 bytes planned"});
}

// A model of `extra` + 1 Identity nodes: one valid node, then a second GraphProto occurrence
// (which protobuf merges into the first) repeating one node `extra` times, built as bytes.
std::string model_with_nodes(const TempDir& dir, int64_t extra) {
  ModelBuilder m;
  m.add_input("x", DType::kF32, {1});
  m.add_node("Identity", {"x"}, {"y"}, "first");
  m.add_output("y", DType::kF32, {1});
  onnx::GraphProto more;
  more.add_node()->CopyFrom(m.graph().node(0));
  const std::string node = more.SerializeAsString();
  std::string graph;
  graph.reserve(node.size() * size_t(extra));
  for (int64_t i = 0; i < extra; ++i) graph += node;
  std::string tail = "\x3a";  // ModelProto field 7 (graph), length-delimited
  for (uint64_t n = graph.size();; n >>= 7) {
    tail.push_back(char((n & 0x7f) | (n >= 0x80 ? 0x80 : 0)));
    if (n < 0x80) break;
  }
  return dir.write("many.onnx", m.serialize() + tail + graph);
}

TEST(NodeLimit, AModelWithMoreNodesThanTheLimitIsRefused) {
  TempDir dir;
  // The limit (docs/run.md) plus the first node.
  const std::string path = model_with_nodes(dir, 1'000'000);
  expect_error([&] { onnx_import::load_model(path); },
               {"many.onnx", "more than 1000000 nodes (subgraphs included)"});
  expect_bad_input(run_strata(dir, {"run", path}), {"more than 1000000 nodes"});
}

TEST(RunMemory, CliMaxMemoryStopsAGrowingSequence) {
  TempDir dir;
  const std::string path = growing_loop(1'000'000'000, false).save(dir.path("grow.onnx"));
  expect_bad_input(
      run_strata(dir, {"run", path, "--max-memory", "1M", "--iter", "1", "--warmup", "0"}),
      {"SequenceInsert node 'insert'", "memory limit of 1048576 bytes"});
}

}  // namespace
}  // namespace strata::test
