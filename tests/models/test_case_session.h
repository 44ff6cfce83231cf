// Runs a model folder in ONNX's test-case layout (model.onnx, test_data_set_0/) the way the CLI
// runs a model: inputs bound, shapes specialised, graph passes on, then one inference.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "passes/optimize.h"
#include "passes/specialize_inputs.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "runtime/test_data.h"

namespace strata::test {

struct TestCaseRun {
  runtime::Model model;
  runtime::TestData data;
  std::unique_ptr<runtime::Session> session;  // has run once on data.inputs
};

inline TestCaseRun run_test_case(const std::filesystem::path& case_dir,
                                 const runtime::SessionOptions& options = {}) {
  TestCaseRun run{runtime::load_model((case_dir / "model.onnx").string()), {}, nullptr};
  run.data = runtime::read_test_data((case_dir / "test_data_set_0").string(), run.model.graph);
  std::vector<std::vector<int64_t>> shapes;
  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : run.data.inputs) {
    shapes.push_back(t.shape());
    specs.push_back({t.dtype(), t.shape()});
    inputs.push_back(&t);
  }
  passes::specialize_inputs(run.model.graph, shapes);
  passes::optimize_graph(run.model.graph);
  run.session = std::make_unique<runtime::Session>(run.model.graph, specs, options);
  run.session->run(inputs);
  return run;
}

}  // namespace strata::test
