// Packed test cases in ONNX's layout: CASE/model.onnx and CASE/test_data_set_0/input_N.pb,
// output_N.pb, so outputs computed on one machine check another (`strata pack`, then
// `strata run CASE`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace strata::debug {

// Copies `model_path` to DIR/model.onnx and writes `inputs` and `outputs` (graph order) as
// DIR/test_data_set_0/input_N.pb and output_N.pb, named after the graph's values. Fails (exit 2)
// when DIR already holds a test case or cannot be written.
void write_test_case(const std::string& dir, const std::string& model_path, const ir::Graph& graph,
                     const std::vector<Tensor>& inputs, const std::vector<const Tensor*>& outputs);

struct TestCase {
  std::string model;     // DIR/model.onnx
  std::string data_dir;  // DIR/test_data_set_0
};

// When `path` is a folder: the test case in it. Fails (exit 2) when the folder lacks model.onnx
// or test_data_set_0. nullopt for anything else (a model file).
std::optional<TestCase> find_test_case(const std::string& path);

}  // namespace strata::debug
