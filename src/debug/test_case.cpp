#include "debug/test_case.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.h"
#include "io/file.h"
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
  auto write = [&](const char* kind, size_t i, const Tensor& t, ir::ValueId id) {
    io::write_file((root / kDataSet / fmt::format("{}_{}.pb", kind, i)).string(),
                   onnx_import::serialize_value_pb(t, graph.values[size_t(id)].name));
  };
  for (size_t i = 0; i < inputs.size(); ++i) write("input", i, inputs[i], graph.inputs[i]);
  for (size_t i = 0; i < outputs.size(); ++i) write("output", i, *outputs[i], graph.outputs[i]);
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
