// ONNX test_data_set folders: input_N.pb bound to the graph inputs in order, output_N.pb expected.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace strata::runtime {

struct TestData {
  std::vector<Tensor> inputs;    // graph.inputs order
  std::vector<Tensor> expected;  // graph.outputs order
};

// Fails (exit 2) naming the folder when it is missing, holds the wrong number of inputs or
// outputs for the model, or a file cannot be read.
TestData read_test_data(const std::string& dir, const ir::Graph& graph);

// A file name for a tensor name: '/', ':' and '\\' (common in exported names) become '_'.
std::string tensor_file_stem(const std::string& name);

// Loads expected outputs named after the graph outputs (NAME.npy or NAME.pb) from `dir`.
std::vector<Tensor> read_expected_outputs(const std::string& dir, const ir::Graph& graph);

}  // namespace strata::runtime
