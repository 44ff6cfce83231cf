// Small models in the shapes real exporters write (tests/models/exports, made by
// scripts/make_export_patterns.py from torch.nn and torchvision modules, and a Caffe2-style graph)
// run as the CLI runs them (graph passes on, fast kernels): outputs as the exporting framework
// computed them, and no step on one of oneDNN's reference implementations. Steps left to strata's
// own reference kernels are listed per model: small ops with no fast kernel.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "models/test_case_session.h"
#include "profiler/slow_paths.h"
#include "runtime/verify.h"

namespace strata::test {
namespace {

namespace fs = std::filesystem;

const fs::path kExports = fs::path(STRATA_SOURCE_DIR) / "tests" / "models" / "exports";

// Op types each model may leave on strata's reference kernels (none of them carries weight).
const std::map<std::string, std::set<std::string>> kReferenceOpsAllowed = {
    {"baddbmm_attention", {"Split"}},
    {"caffe2_style", {"Mul", "Add"}},  // opset 6 broadcasts by attribute
    {"keras_style_nhwc", {"ReduceMean"}},
    {"torch_padded_encoder", {"Cast", "Equal", "Expand"}},
};

TEST(ExportPatterns, RunOnFastImplementationsWithTheFrameworksOutputs) {
  size_t models = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(kExports)) {
    if (!entry.is_directory()) continue;  // README.md
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++models;
    const TestCaseRun run = run_test_case(entry.path());
    const runtime::TestData& data = run.data;
    const runtime::Session& session = *run.session;
    const runtime::Model& model = run.model;
    for (size_t i = 0; i < data.expected.size(); ++i) {
      const runtime::Comparison c =
          runtime::compare(session.output(i), data.expected[i], {1e-4, 1e-5});
      EXPECT_TRUE(c.ok) << "output " << i << ": " << c.problem;
    }
    const auto allowed = kReferenceOpsAllowed.find(name);
    for (const runtime::StepInfo& step : session.steps()) {
      const ir::Node& node = model.graph.nodes[step.node_index];
      if (!profiler::is_reference_kernel(step.kernel)) continue;
      EXPECT_EQ(step.kernel, "reference")
          << node.name << " (" << node.op_type << "): " << step.reason;
      EXPECT_TRUE(allowed != kReferenceOpsAllowed.end() && allowed->second.count(node.op_type))
          << node.name << " (" << node.op_type << ") runs on " << step.kernel << ": "
          << step.reason;
    }
  }
  EXPECT_EQ(models, 11u) << "every exported pattern in " << kExports;
}

}  // namespace
}  // namespace strata::test
