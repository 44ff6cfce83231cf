// Test cases, test data and expected outputs (include/strata/verify.h) behind the public API.
#include "strata/verify.h"

#include <fmt/format.h>

#include "api/convert.h"
#include "api/model_impl.h"
#include "core/error.h"
#include "debug/test_case.h"
#include "runtime/input_binding.h"
#include "runtime/test_data.h"

namespace strata {

namespace {

// Graph outputs or inputs named in graph order.
NamedArrays named(const std::vector<Tensor>& tensors, const ir::Graph& graph,
                  const std::vector<ir::ValueId>& ids, const char* what,
                  const std::string& origin) {
  NamedArrays out;
  for (size_t i = 0; i < tensors.size() && i < ids.size(); ++i) {
    const std::string& name = graph.values[size_t(ids[i])].name;
    out.push_back({name, api::to_array(tensors[i], fmt::format("{} '{}'", what, name)), origin});
  }
  return out;
}

}  // namespace

std::optional<TestCase> find_test_case(const std::string& path) {
  const std::optional<debug::TestCase> found = debug::find_test_case(path);
  if (!found) return std::nullopt;
  return TestCase{found->model, found->data_dir};
}

TestData read_test_data(const Model& model, const std::string& dir,
                        const std::function<void(const std::string&)>& warn) {
  const ir::Graph& graph = model.impl().loaded.graph;
  const runtime::TestData data = runtime::read_test_data(dir, graph);
  if (warn)
    for (size_t i = 0; i < data.inputs.size(); ++i)
      if (runtime::contains_nan(data.inputs[i]))
        warn(fmt::format("input '{}' contains NaN", graph.values[size_t(graph.inputs[i])].name));
  return {named(data.inputs, graph, graph.inputs, "input", dir),
          named(data.expected, graph, graph.outputs, "expected output", "")};
}

NamedArrays read_expected_outputs(const Model& model, const std::string& dir) {
  const ir::Graph& graph = model.impl().loaded.graph;
  return named(runtime::read_expected_outputs(dir, graph), graph, graph.outputs, "expected output",
               "");
}

std::vector<ValueComparison> verify_outputs(const NamedArrays& outputs, const NamedArrays& expected,
                                            const CompareOptions& options) {
  const runtime::Tolerance tol = api::tolerance(options);
  std::vector<ValueComparison> results;
  for (const NamedArray& e : expected) {
    const NamedArray* actual = nullptr;
    for (const NamedArray& o : outputs)
      if (o.name == e.name) actual = &o;
    if (!actual) fail("expected output '{}' is not an output of the model", e.name);
    const runtime::Comparison c =
        runtime::compare(api::to_tensor(actual->array), api::to_tensor(e.array), tol);
    results.push_back(api::value_comparison(e.name, c));
  }
  return results;
}

}  // namespace strata
