// Runs the ONNX project's backend tests (../shared/onnx-tests) and enforces the checked-in list of
// expected passes (tests/conformance/expected_passes.txt). Compares like ONNX's runner: exact
// dtypes and shapes, values with rtol 1e-3 / atol 1e-7.
//
// STRATA_ONNX_TESTS overrides where the data is; STRATA_CONFORMANCE_RESULTS=FILE writes every
// test's outcome ("suite/test pass|fail|unsupported reason") to regenerate the list.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "strata_internal.h"
#include "testutil/test_files.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

enum class Outcome { kPass, kFail, kUnsupported };

struct Result {
  Outcome outcome;
  std::string detail;
};

bool is_unsupported(const std::string& message) {
  return message.find("unsupported") != std::string::npos ||
         message.find("not supported") != std::string::npos ||
         message.find("does not support") != std::string::npos;
}

Result run_case(const ir::Graph& graph, const std::vector<Tensor>& inputs,
                const std::vector<Tensor>& expected, runtime::Tolerance tol) {
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
    ptrs.push_back(&t);
  }
  runtime::Session session(graph, specs, {});
  session.run(ptrs);
  for (size_t i = 0; i < expected.size(); ++i) {
    const runtime::Comparison c = runtime::compare(session.output(i), expected[i], tol);
    if (!c.ok)
      return {Outcome::kFail, graph.values[size_t(graph.outputs[i])].name + ": " + c.problem};
  }
  return {Outcome::kPass, ""};
}

Result run_node_test(const fs::path& dir) {
  try {
    const runtime::Model loaded = runtime::load_model((dir / "model.onnx").string());
    const runtime::TestData data =
        runtime::read_test_data((dir / "test_data_set_0").string(), loaded.graph);
    return run_case(loaded.graph, data.inputs, data.expected, {});
  } catch (const Error& e) {
    return {is_unsupported(e.what()) ? Outcome::kUnsupported : Outcome::kFail, e.what()};
  }
}

// light/ models carry no input: ONNX's runner feeds arange(n)/n shaped like the graph input.
Result run_light_model(const fs::path& model) {
  try {
    const runtime::Model loaded = runtime::load_model(model.string());
    const ir::Graph& g = loaded.graph;
    std::vector<Tensor> inputs;
    for (ir::ValueId id : g.inputs) {
      std::vector<int64_t> shape;
      for (const Dim& d : g.values[size_t(id)].shape.dims())
        shape.push_back(d.is_static() ? d.value() : 1);
      Tensor t = Tensor::zeros(DType::kF32, shape);
      for (int64_t i = 0; i < t.numel(); ++i)
        t.data<float>()[i] = float(double(i) / double(t.numel()));
      inputs.push_back(std::move(t));
    }
    std::string stem = model.stem().string();
    const fs::path out = model.parent_path() / (stem + "_output_0.pb");
    std::vector<Tensor> expected = {onnx_import::read_tensor_pb(out.string())};
    runtime::Tolerance tol;
    if (stem == "light_densenet121") tol.rtol = 2e-3;  // data.json of that model
    return run_case(g, inputs, expected, tol);
  } catch (const Error& e) {
    return {is_unsupported(e.what()) ? Outcome::kUnsupported : Outcome::kFail, e.what()};
  }
}

std::set<std::string> expected_passes() {
  std::set<std::string> names;
  std::ifstream in(fs::path(STRATA_SOURCE_DIR) / "tests" / "conformance" / "expected_passes.txt");
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') names.insert(line);
  return names;
}

void run_suite(const std::string& suite) {
  const fs::path root = onnx_tests_root() / suite;
  if (!fs::is_directory(root))
    GTEST_SKIP() << "ONNX conformance data not found at " << root
                 << " (it lives in ../shared/onnx-tests; set STRATA_ONNX_TESTS to point elsewhere)";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (suite == "light") {
      if (entry.path().extension() == ".onnx") cases.push_back(entry.path());
    } else if (entry.is_directory()) {
      cases.push_back(entry.path());
    }
  }
  std::sort(cases.begin(), cases.end());

  const std::set<std::string> expected = expected_passes();
  std::map<Outcome, int> counts;
  std::vector<std::string> regressions;
  int new_passes = 0;
  std::ofstream results;
  if (const char* path = std::getenv("STRATA_CONFORMANCE_RESULTS"))
    results.open(path, std::ios::app);
  for (const fs::path& c : cases) {
    const std::string name =
        suite + "/" + (suite == "light" ? c.stem().string() : c.filename().string());
    const Result r = suite == "light" ? run_light_model(c) : run_node_test(c);
    counts[r.outcome]++;
    const bool listed = expected.count(name) > 0;
    if (listed && r.outcome != Outcome::kPass) regressions.push_back(name + ": " + r.detail);
    if (!listed && r.outcome == Outcome::kPass) ++new_passes;
    if (results.is_open()) {
      const char* word = r.outcome == Outcome::kPass   ? "pass"
                         : r.outcome == Outcome::kFail ? "fail"
                                                       : "unsupported";
      std::string detail = r.detail;
      for (char& ch : detail)
        if (ch == '\n') ch = ' ';
      results << name << "\t" << word << "\t" << detail << "\n";
    }
  }
  std::printf(
      "[conformance] %-18s %4zu tests: %4d pass, %4d fail, %4d unsupported (%d passing but not yet "
      "listed)\n",
      suite.c_str(), cases.size(), counts[Outcome::kPass], counts[Outcome::kFail],
      counts[Outcome::kUnsupported], new_passes);
  for (const std::string& r : regressions) ADD_FAILURE() << "expected to pass: " << r;
}

TEST(Conformance, NodeV1_16_2) {
  run_suite("node-v1.16.2");
}
TEST(Conformance, Node) {
  run_suite("node");
}
TEST(Conformance, Simple) {
  run_suite("simple");
}
TEST(Conformance, PytorchConverted) {
  run_suite("pytorch-converted");
}
TEST(Conformance, PytorchOperator) {
  run_suite("pytorch-operator");
}
TEST(Conformance, Light) {
  run_suite("light");
}

}  // namespace
}  // namespace strata::test
