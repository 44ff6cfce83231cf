// Every op strata registers (ai.onnx, ai.onnx.ml, ai.onnx.preview.training and its internal ops)
// has a cost rule, so `strata analyze` and the profiler never list an op as "no cost rule".
//
// Each op is checked on real shapes: the first ONNX backend node (or simple) test whose graph uses
// the op (../shared/onnx-tests/ops.tsv and ops_other.tsv say which ops each test uses) is run
// through a Session and the cost rule of every step of that op is evaluated, as the profiler
// does. Ops without such a test (internal ops, ops only ever inside subgraphs, random generators)
// have a sample call here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ops/domain_ops.h"
#include "ops/internal_ops.h"
#include "ops/op_test_util.h"
#include "profiler/step_description.h"
#include "strata_internal.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

// "Relu" for ai.onnx, "ai.onnx.ml:LabelEncoder" for another domain: the names ops.tsv uses.
std::string qualified(std::string_view domain, std::string_view type) {
  if (domain.empty() || domain == "ai.onnx") return std::string(type);
  return std::string(domain) + ":" + std::string(type);
}

struct Registered {
  std::string domain, type;
};

std::vector<Registered> registered_ops() {
  std::vector<Registered> all;
  for (std::string_view type : ops::supported_ops()) all.push_back({"", std::string(type)});
  for (const auto& [domain, type] : ops::supported_domain_ops())
    all.push_back({std::string(domain), std::string(type)});
#define STRATA_INTERNAL_OP(type, family) all.push_back({std::string(ops::kStrataDomain), #type});
#include "ops/internal_op_list.inc"
#undef STRATA_INTERNAL_OP
  return all;
}

// Per op (qualified name), the backend tests using it at the top level ("node/test_abs"), in the
// order of ops.tsv (the node tests), then of ops_other.tsv's simple tests (test_gradient_of_add).
std::map<std::string, std::vector<std::string>> tests_by_op(const fs::path& root) {
  std::map<std::string, std::vector<std::string>> by_op;
  auto read = [&](const fs::path& tsv, bool has_suite) {
    std::ifstream in(tsv);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string suite = "node", test, op_types, op;
      if (has_suite) std::getline(fields, suite, '\t');
      std::getline(fields, test, '\t');
      std::getline(fields, op_types, '\t');
      if (suite != "node" && suite != "simple") continue;
      std::istringstream types(op_types);
      while (std::getline(types, op, ',')) by_op[op].push_back(suite + "/" + test);
    }
  };
  read(root / "ops.tsv", false);
  read(root / "ops_other.tsv", true);
  return by_op;
}

// Runs a node test and returns, per op type of its steps, whether every such step has a cost.
// Empty when the test does not run (a dtype or mode strata refuses).
std::map<std::string, bool> step_costs(const fs::path& dir) {
  std::map<std::string, bool> has_cost;
  try {
    const runtime::Model loaded = runtime::load_model((dir / "model.onnx").string());
    const runtime::TestData data =
        runtime::read_test_data((dir / "test_data_set_0").string(), loaded.graph);
    std::vector<runtime::InputSpec> specs;
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : data.inputs) {
      specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
      ptrs.push_back(&t);
    }
    runtime::Session session(loaded.graph, specs, {});
    session.run(ptrs);
    const std::vector<profiler::NodeProfile> rows = profiler::describe_steps(session);
    for (size_t s = 0; s < rows.size(); ++s) {
      const ir::Node& node = session.graph().nodes[session.steps()[s].node_index];
      const std::string name = qualified(node.domain, node.op_type);
      auto [it, fresh] = has_cost.emplace(name, rows[s].has_cost);
      if (!fresh) it->second = it->second && rows[s].has_cost;
    }
  } catch (const Error&) {
    has_cost.clear();
  }
  return has_cost;
}

Tensor sample_floats(std::vector<int64_t> shape) {
  Tensor t = Tensor::zeros(DType::kF32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float(i % 7) * 0.25f;
  return t;
}

// Ops no top-level node test uses: a call with inputs, evaluated by its shape and cost rules.
std::map<std::string, OpCall> sample_calls() {
  std::map<std::string, OpCall> calls;
  auto add = [&](std::string name, OpCall call) {
    calls.emplace(std::move(name), std::move(call));
  };
  OpCall normal = op_call("RandomNormal", 17, {{"shape", attr_ints({2, 3})}});
  add("RandomNormal", normal);
  OpCall uniform = op_call("RandomUniform", 17, {{"shape", attr_ints({2, 3})}});
  add("RandomUniform", uniform);
  OpCall like = op_call("RandomNormalLike");
  like.inputs = {sample_floats({2, 3})};
  add("RandomNormalLike", like);
  OpCall multinomial = op_call("Multinomial", 17, {{"sample_size", attr_int(4)}});
  multinomial.inputs = {sample_floats({2, 3})};
  add("Multinomial", multinomial);
  // Folded ahead of time in every node test.
  OpCall size = op_call("Size");
  size.inputs = {sample_floats({2, 3})};
  add("Size", size);
  add("Constant", op_call("Constant", 17, {{"value", attr_tensor(sample_floats({2}))}}));
  // Sequences (node tests use them inside Loop bodies or fold them).
  const Tensor sequence =
      Tensor::sequence(DType::kF32, {sample_floats({2, 3}), sample_floats({1, 3})});
  OpCall construct = op_call("SequenceConstruct");
  construct.inputs = {sample_floats({2, 3}), sample_floats({1, 3})};
  add("SequenceConstruct", construct);
  OpCall at = op_call("SequenceAt");
  at.inputs = {sequence, Tensor::from<int64_t>({}, {1})};
  add("SequenceAt", at);
  OpCall erase = op_call("SequenceErase");
  erase.inputs = {sequence};
  add("SequenceErase", erase);
  OpCall concat = op_call("ConcatFromSequence", 17, {{"axis", attr_int(0)}});
  concat.inputs = {sequence};
  add("ConcatFromSequence", concat);
  OpCall optional = op_call("Optional");
  optional.inputs = {sample_floats({2})};
  add("Optional", optional);
  // strata's internal ops (fusions the graph passes create).
  OpCall conv = op_call("FusedConv", 17, {{"activation", attr_string("Relu")}});
  conv.domain = ops::kStrataDomain;
  conv.inputs = {sample_floats({1, 2, 4, 4}), sample_floats({3, 2, 3, 3}), sample_floats({3})};
  add("strata:FusedConv", conv);
  OpCall matmul = op_call("FusedMatMul", 17, {{"activation", attr_string("")}});
  matmul.domain = ops::kStrataDomain;
  matmul.inputs = {sample_floats({2, 3}), sample_floats({3, 4})};
  add("strata:FusedMatMul", matmul);
  OpCall norm = op_call("FusedBatchNorm", 17, {{"activation", attr_string("Relu")}});
  norm.domain = ops::kStrataDomain;
  norm.inputs = {sample_floats({1, 2, 3, 3}), sample_floats({2}), sample_floats({2}),
                 sample_floats({2}), sample_floats({2})};
  add("strata:FusedBatchNorm", norm);
  const Tensor one_scale = Tensor::from<float>({}, {0.5f});
  const Tensor zero_u8 = Tensor::from<uint8_t>({}, {uint8_t(0)});
  const Tensor zero_i8 = Tensor::from<int8_t>({}, {int8_t(0)});
  OpCall gemm = op_call("QLinearGemm", 13);
  gemm.domain = ops::kStrataDomain;
  gemm.inputs = {Tensor::zeros(DType::kU8, {2, 3}),
                 one_scale,
                 zero_u8,
                 Tensor::zeros(DType::kI8, {3, 4}),
                 one_scale,
                 zero_i8,
                 one_scale,
                 zero_u8,
                 Tensor::zeros(DType::kI32, {4})};
  add("strata:QLinearGemm", gemm);
  OpCall qadd = op_call("QLinearAdd", 13);
  qadd.domain = ops::kStrataDomain;
  qadd.inputs = {Tensor::zeros(DType::kU8, {2, 3}),
                 one_scale,
                 zero_u8,
                 Tensor::zeros(DType::kU8, {2, 3}),
                 one_scale,
                 zero_u8,
                 one_scale,
                 zero_u8};
  add("strata:QLinearAdd", qadd);
  OpCall to_float = op_call("MatMulIntegerToFloat", 13);
  to_float.domain = ops::kStrataDomain;
  to_float.inputs = {Tensor::zeros(DType::kU8, {2, 3}),
                     Tensor::zeros(DType::kI8, {3, 4}),
                     zero_u8,
                     zero_i8,
                     one_scale,
                     Tensor::zeros(DType::kF32, {4})};
  add("strata:MatMulIntegerToFloat", to_float);
  OpCall shuffle = op_call("ChannelShuffle", 13, {{"group", attr_int(2)}});
  shuffle.domain = ops::kStrataDomain;
  shuffle.inputs = {Tensor::zeros(DType::kF32, {1, 4, 3, 3})};
  add("strata:ChannelShuffle", shuffle);
  return calls;
}

std::optional<ops::Cost> cost_of_call(const OpCall& call) {
  ir::Graph graph;
  graph.opset = call.opset;
  ir::Node node;
  node.name = "sample";
  node.op_type = call.op_type;
  node.domain = call.domain;
  node.attributes = call.attributes;
  for (size_t i = 0; i < call.inputs.size() + call.num_outputs; ++i) {
    graph.values.emplace_back();
    (i < call.inputs.size() ? node.inputs : node.outputs).push_back(ir::ValueId(i));
  }
  std::vector<ops::Meta> inputs(call.inputs.size());
  std::vector<const ops::Meta*> in_ptrs;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    inputs[i].dtype = call.inputs[i].dtype();
    inputs[i].kind = call.inputs[i].kind();
    if (inputs[i].kind == ValueKind::kTensor) inputs[i].shape = Shape::of(call.inputs[i].shape());
    inputs[i].value = std::make_shared<const Tensor>(call.inputs[i]);
    in_ptrs.push_back(&inputs[i]);
  }
  ops::NodeInfo info(graph, node, call.opset);
  const std::unique_ptr<ops::Op> op = ops::find_op_in_domain(call.domain, call.op_type)(info);
  std::vector<ops::Meta> outputs(call.num_outputs);
  ops::InferContext infer(in_ptrs, outputs);
  op->infer(infer);
  return op->cost(ops::CostContext(in_ptrs, outputs));
}

TEST(CostCoverage, EveryRegisteredOpHasACostRule) {
  const fs::path root = onnx_tests_root();
  if (!fs::is_regular_file(root / "ops.tsv"))
    GTEST_SKIP() << "ONNX backend tests not found at " << root << " (set STRATA_ONNX_TESTS)";
  std::map<std::string, std::vector<std::string>> node_tests = tests_by_op(root);
  const std::map<std::string, OpCall> samples = sample_calls();

  std::vector<std::string> no_rule, unchecked;
  std::map<std::string, bool> seen;  // op -> has a cost, from node tests already run
  for (const Registered& op : registered_ops()) {
    const std::string name = qualified(op.domain, op.type);
    if (auto sample = samples.find(name); sample != samples.end()) {
      if (!cost_of_call(sample->second)) no_rule.push_back(name);
      continue;
    }
    for (const std::string& test : node_tests[name]) {
      if (seen.count(name)) break;
      for (const auto& [type, has_cost] : step_costs(root / test))
        seen[type] = seen.count(type) ? seen[type] && has_cost : has_cost;
    }
    if (!seen.count(name))
      unchecked.push_back(name);
    else if (!seen[name])
      no_rule.push_back(name);
  }
  for (const std::string& name : no_rule) ADD_FAILURE() << name << " has no cost rule";
  for (const std::string& name : unchecked)
    ADD_FAILURE() << name << " is never checked: no node test runs it; add a sample call";
}

}  // namespace
}  // namespace strata::test
