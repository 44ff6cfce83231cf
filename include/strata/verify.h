// Checking a model's outputs against expected ones, as `strata run --verify DIR`, `--test-data DIR`
// and `strata run CASE_DIR` (a test case `strata pack` wrote) do:
//
//   strata::Model model = strata::Model::load("examples/tiny_resnet.onnx");
//   strata::TestData data = strata::read_test_data(model, "case/test_data_set_0");
//   strata::Session session(model, data.inputs);
//   strata::CompareOptions tolerance;
//   tolerance.elementwise = true;  // numpy's assert_allclose
//   for (const strata::ValueComparison& c :
//        strata::verify_outputs(session.run(data.inputs), data.expected, tolerance))
//     std::printf("%s: %s\n", c.value.c_str(), c.ok ? "ok" : c.problem.c_str());
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/compare.h"
#include "strata/model.h"
#include "strata/session.h"

namespace strata {

// An ONNX test case folder: DIR/model.onnx and DIR/test_data_set_0 (`strata pack` writes one).
struct TestCase {
  std::string model;     // DIR/model.onnx
  std::string data_dir;  // DIR/test_data_set_0
};

// When `path` is a folder: the test case in it; throws strata::Error when the folder lacks
// model.onnx or test_data_set_0. nullopt for anything else (a model file).
std::optional<TestCase> find_test_case(const std::string& path);

// An ONNX test_data_set folder: input_N.pb bound to the graph inputs in order (origin: the
// folder), output_N.pb the expected outputs in graph order.
struct TestData {
  NamedArrays inputs;
  NamedArrays expected;
};

// Throws strata::Error naming the folder when it is missing or holds the wrong number of inputs or
// outputs for the model, or naming a file that cannot be read. `warn` hears of an input holding
// NaN ("input 'x' contains NaN").
TestData read_test_data(const Model& model, const std::string& dir,
                        const std::function<void(const std::string&)>& warn = {});

// The expected outputs DIR/NAME.npy (or NAME.pb) of every graph output, in graph order (names as
// file_stem_of spells them); throws strata::Error naming a missing or unreadable file.
NamedArrays read_expected_outputs(const Model& model, const std::string& dir);

// Each expected value against the output of the same name, in the order of `expected`: dtypes
// and shapes must match exactly, values within the tolerance (NaN matches NaN). ValueComparison's
// node and op_type are left empty. Throws strata::Error for an expected value no output has.
std::vector<ValueComparison> verify_outputs(const NamedArrays& outputs, const NamedArrays& expected,
                                            const CompareOptions& options = {});

}  // namespace strata
