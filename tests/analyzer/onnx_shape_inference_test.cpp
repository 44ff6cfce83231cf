// The analyzer's output shapes and dtypes against ONNX's own C++ shape inference
// (onnx::shape_inference::InferShapes, with data propagation) on every model of the ONNX test data
// (../shared/onnx-tests: node/, node-v1.16.2/, simple/, pytorch-*/, light/). Where both know a
// dimension they must agree; where ONNX leaves it unknown any strata value is accepted. Models
// with ops strata does not implement, or that strata's loader rejects, are skipped and counted.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analyzer/analyze.h"
#include "onnx/loader.h"
#include "ops/internal_ops.h"
#include "testutil/test_files.h"

namespace strata::analyzer {
namespace {

namespace fs = std::filesystem;

struct Counts {
  int models = 0, compared = 0, unsupported = 0, unreadable = 0, onnx_failed = 0;
  int strata_failed = 0;
  int64_t values = 0, dims = 0;
  std::vector<std::string> mismatches;
  std::vector<std::string> failures;  // strata rejected a model ONNX accepts (printed)
};

// ONNX's inferred (or declared) types of the graph's values, by name.
std::map<std::string, onnx::TypeProto> onnx_types(const fs::path& file, bool* ok) {
  std::map<std::string, onnx::TypeProto> types;
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  onnx::ModelProto model;
  *ok = model.ParseFromString(bytes.str());
  if (!*ok) return types;
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception&) {
    *ok = false;
    return types;
  }
  for (const auto& v : model.graph().value_info()) types[v.name()] = v.type();
  for (const auto& v : model.graph().output()) types[v.name()] = v.type();
  return types;
}

void check_model(const fs::path& file, const std::string& name, Counts& c) {
  ++c.models;
  ir::Graph graph;
  try {
    graph = onnx_import::load_model(file.string()).graph;
  } catch (const Error&) {
    ++c.unreadable;  // sequence/optional/string types, unsupported dtypes: not strata's domain
    return;
  }
  for (const ir::Node& node : graph.nodes)
    if (!ops::find_op_in_domain(node.domain, node.op_type)) {
      ++c.unsupported;
      return;
    }
  bool onnx_ok = false;
  const std::map<std::string, onnx::TypeProto> types = onnx_types(file, &onnx_ok);
  if (!onnx_ok) {
    ++c.onnx_failed;
    return;
  }
  Analysis a;
  try {
    a = analyze(graph);
  } catch (const Error& e) {
    ++c.strata_failed;
    c.failures.push_back(name + ": " + e.what());
    return;
  }
  ++c.compared;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const std::string& value = graph.values[size_t(node.outputs[j])].name;
      const auto it = types.find(value);
      if (it == types.end() || !it->second.has_tensor_type()) continue;
      const auto& tt = it->second.tensor_type();
      const OutputInfo& ours = a.nodes[n].outputs[j];
      if (ours.dtype == DType::kUndefined) continue;  // strata does not know it
      ++c.values;
      const std::string where = name + ": " + graph.describe(node) + " output '" + value + "'";
      if (tt.elem_type() != 0 && tt.elem_type() != int(ours.dtype))
        c.mismatches.push_back(where + ": dtype " + std::string(dtype_name(ours.dtype)) +
                               ", ONNX says " + std::to_string(tt.elem_type()));
      if (!tt.has_shape()) continue;
      const auto& dims = tt.shape().dim();
      if (dims.size() != int(ours.dims.size())) {
        c.mismatches.push_back(where + ": rank " + std::to_string(ours.dims.size()) +
                               ", ONNX says " + std::to_string(dims.size()));
        continue;
      }
      for (int d = 0; d < dims.size(); ++d) {
        if (!dims[d].has_dim_value()) continue;  // ONNX does not know: anything goes
        const Quantity& q = ours.dims[size_t(d)];
        std::optional<double> v = q.value;
        if (!v && q.formula && q.formula->is_constant()) v = q.formula->constant_term();
        if (!v) continue;
        ++c.dims;
        // A data-dependent size taken at its upper bound (NonZero's count) holds the real one.
        const bool bound = a.nodes[n].upper_bound;
        if (bound ? int64_t(*v) < dims[d].dim_value() : int64_t(*v) != dims[d].dim_value())
          c.mismatches.push_back(where + ": dim " + std::to_string(d) + " is " +
                                 std::to_string(int64_t(*v)) + (bound ? " (an upper bound)" : "") +
                                 ", ONNX says " + std::to_string(dims[d].dim_value()));
      }
    }
  }
}

void run_suite(const std::string& suite) {
  const fs::path root = test::onnx_tests_root() / suite;
  if (!fs::is_directory(root))
    GTEST_SKIP() << "ONNX test data not found at " << root
                 << " (it lives in ../shared/onnx-tests; set STRATA_ONNX_TESTS to point elsewhere)";
  std::vector<std::pair<fs::path, std::string>> models;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (suite == "light" && entry.path().extension() == ".onnx")
      models.push_back({entry.path(), suite + "/" + entry.path().stem().string()});
    else if (entry.is_directory() && fs::exists(entry.path() / "model.onnx"))
      models.push_back(
          {entry.path() / "model.onnx", suite + "/" + entry.path().filename().string()});
  }
  std::sort(models.begin(), models.end());
  Counts c;
  for (const auto& [file, name] : models) check_model(file, name, c);
  std::printf(
      "[onnx shapes] %-18s %4d models: %4d compared (%lld values, %lld dims), %d with unsupported "
      "ops, %d unreadable, %d ONNX could not infer, %d strata rejected, %zu mismatches\n",
      suite.c_str(), c.models, c.compared, (long long)c.values, (long long)c.dims, c.unsupported,
      c.unreadable, c.onnx_failed, c.strata_failed, c.mismatches.size());
  for (const std::string& f : c.failures)
    std::printf("[onnx shapes]   strata rejected %s\n", f.c_str());
  for (const std::string& m : c.mismatches) ADD_FAILURE() << m;
  EXPECT_GT(c.compared, 0);
}

TEST(AnalyzerOnnxShapes, NodeV1_16_2) {
  run_suite("node-v1.16.2");
}
TEST(AnalyzerOnnxShapes, Node) {
  run_suite("node");
}
TEST(AnalyzerOnnxShapes, Simple) {
  run_suite("simple");
}
TEST(AnalyzerOnnxShapes, PytorchConverted) {
  run_suite("pytorch-converted");
}
TEST(AnalyzerOnnxShapes, PytorchOperator) {
  run_suite("pytorch-operator");
}
TEST(AnalyzerOnnxShapes, Light) {
  run_suite("light");
}

}  // namespace
}  // namespace strata::analyzer
