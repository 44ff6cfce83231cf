// Turning the user's input arguments (files, inline values, or nothing) into tensors bound to the
// graph inputs, in graph order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace strata::runtime {

// One --input argument: "name=source" or a bare "source" (bound to the next unnamed input).
// A source is a file (.npy, .pb, .json, .pgm/.ppm/.png/.jpg/.bmp) or an inline JSON array "[1,2]".
struct InputArg {
  std::string name;  // "" when bound by position
  std::string source;
};

// Splits "name=source"; a bare source keeps name empty. A Windows-style or path containing '='
// before a '/' is still treated as named: names cannot contain '/'.
InputArg parse_input_arg(const std::string& text);
// parse_input_arg reads "gpu_0/data_0=x.npy" as a path (a '/' before the '='); it names an input
// when the model has one of exactly that name (Caffe2's graphs): such arguments are split here.
void name_inputs_with_slashes(const ir::Graph& graph, std::vector<InputArg>& args);

// Parses "1x3x224x224" (or "1,3,224,224") into dims; fails naming `what` on anything else.
std::vector<int64_t> parse_shape(const std::string& text, const std::string& what);

struct BindOptions {
  std::vector<InputArg> inputs;
  std::map<std::string, std::vector<int64_t>> shapes;  // --shape name=dims for dynamic inputs
  std::map<std::string, int64_t> dims;                 // --dim N=8 for named symbolic dims
  std::map<std::string, Tensor> values;  // tensors given by name (the API): checked like files
  uint64_t seed = 0;
};

struct BoundInput {
  Tensor tensor;
  std::string origin;  // "input.npy", "random (seed 0)", "inline"
};

// Reads or generates every graph input. Fails (exit 2) naming the input or file for an unknown
// input name, a file that cannot be read, a dtype or shape the model does not accept, or a
// dynamic dim with no value.
std::vector<BoundInput> bind_inputs(const ir::Graph& graph, const BindOptions& options);

// True when a floating-point tensor holds a NaN (bound inputs are warned about).
bool contains_nan(const Tensor& t);

// Reads one tensor file by its extension, converting JSON to `dtype`.
Tensor read_tensor_file(const std::string& path, DType dtype);

}  // namespace strata::runtime
