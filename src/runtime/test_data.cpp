#include "runtime/test_data.h"

#include <filesystem>

#include "core/error.h"
#include "io/npy.h"
#include "onnx/tensor_proto.h"

namespace strata::runtime {

namespace fs = std::filesystem;

namespace {

// input_0.pb, input_1.pb, ... until the first gap; value i read as the kind of values[i].
std::vector<Tensor> read_numbered(const fs::path& dir, const char* prefix, const ir::Graph& graph,
                                  const std::vector<ir::ValueId>& values) {
  std::vector<Tensor> tensors;
  for (size_t i = 0;; ++i) {
    const fs::path p = dir / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(p)) break;
    const ir::Value* v = i < values.size() ? &graph.values[size_t(values[i])] : nullptr;
    tensors.push_back(v && v->kind != ValueKind::kTensor
                          ? onnx_import::read_value_pb(p.string(), v->kind, v->dtype)
                          : onnx_import::read_tensor_pb(p.string()));
  }
  return tensors;
}

// Some ONNX test files store bfloat16 tensors with data_type UINT16 (the same bits): accept them
// where the model declares bfloat16.
void reinterpret_bf16(Tensor& t, DType declared) {
  if (declared == DType::kBF16 && t.dtype() == DType::kU16)
    t = Tensor::view(DType::kBF16, t.shape(), t.raw(), std::make_shared<Tensor>(t));
}

}  // namespace

std::string tensor_file_stem(const std::string& name) {
  std::string s = name;
  for (char& c : s)
    if (c == '/' || c == ':' || c == '\\') c = '_';
  return s;
}

TestData read_test_data(const std::string& dir, const ir::Graph& graph) {
  if (!fs::is_directory(dir)) fail("{}: no such test data folder", dir);
  TestData data;
  data.inputs = read_numbered(dir, "input", graph, graph.inputs);
  data.expected = read_numbered(dir, "output", graph, graph.outputs);
  if (data.inputs.size() != graph.inputs.size())
    fail("{}: holds {} input files but the model has {} inputs", dir, data.inputs.size(),
         graph.inputs.size());
  if (data.expected.size() != graph.outputs.size())
    fail("{}: holds {} output files but the model has {} outputs", dir, data.expected.size(),
         graph.outputs.size());
  for (size_t i = 0; i < data.inputs.size(); ++i)
    reinterpret_bf16(data.inputs[i], graph.values[size_t(graph.inputs[i])].dtype);
  for (size_t i = 0; i < data.expected.size(); ++i)
    reinterpret_bf16(data.expected[i], graph.values[size_t(graph.outputs[i])].dtype);
  return data;
}

std::vector<Tensor> read_expected_outputs(const std::string& dir, const ir::Graph& graph) {
  if (!fs::is_directory(dir)) fail("{}: no such folder of expected outputs", dir);
  std::vector<Tensor> expected;
  for (ir::ValueId id : graph.outputs) {
    const std::string& name = graph.values[size_t(id)].name;
    const fs::path npy = fs::path(dir) / (tensor_file_stem(name) + ".npy");
    const fs::path pb = fs::path(dir) / (tensor_file_stem(name) + ".pb");
    if (fs::exists(npy))
      expected.push_back(io::read_npy(npy.string()));
    else if (fs::exists(pb))
      expected.push_back(onnx_import::read_tensor_pb(pb.string()));
    else
      fail("{}: no expected values for output '{}' (looked for {} and {})", dir, name,
           npy.filename().string(), pb.filename().string());
  }
  return expected;
}

}  // namespace strata::runtime
