#include "debug/test_case.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.h"
#include "onnx/tensor_proto.h"

namespace strata::debug {

namespace fs = std::filesystem;

namespace {
constexpr const char* kModelFile = "model.onnx";
constexpr const char* kDataSet = "test_data_set_0";
}  // namespace

void write_test_case(const std::string& dir, const std::string& model_path, const ir::Graph& graph,
                     const std::vector<Tensor>& inputs, const std::vector<const Tensor*>& outputs) {
  const fs::path root(dir);
  std::error_code ec;
  if (fs::exists(root / kModelFile, ec) || fs::exists(root / kDataSet, ec))
    fail("{}: already holds a test case; give a new folder", dir);
  fs::create_directories(root / kDataSet, ec);
  if (ec) fail("{}: cannot create the folder ({})", dir, ec.message());
  fs::copy_file(model_path, root / kModelFile, ec);
  if (ec) fail("{}: cannot copy the model to {} ({})", model_path, dir, ec.message());
  for (size_t i = 0; i < inputs.size(); ++i)
    onnx_import::write_tensor_pb((root / kDataSet / fmt::format("input_{}.pb", i)).string(),
                                 inputs[i], graph.values[size_t(graph.inputs[i])].name);
  for (size_t i = 0; i < outputs.size(); ++i)
    onnx_import::write_tensor_pb((root / kDataSet / fmt::format("output_{}.pb", i)).string(),
                                 *outputs[i], graph.values[size_t(graph.outputs[i])].name);
}

std::optional<TestCase> find_test_case(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return std::nullopt;
  const fs::path root(path);
  if (!fs::is_regular_file(root / kModelFile, ec))
    fail("{}: a folder without {}: not a test case (strata pack writes them)", path, kModelFile);
  if (!fs::is_directory(root / kDataSet, ec))
    fail("{}: a test case folder without {}", path, kDataSet);
  return TestCase{(root / kModelFile).string(), (root / kDataSet).string()};
}

}  // namespace strata::debug
