#include "runtime/input_folder.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"

namespace strata::runtime {

namespace fs = std::filesystem;

namespace {

bool is_folder(const std::string& source) {
  std::error_code ec;
  return fs::is_directory(source, ec);
}

// An inline value ("[1,2,3]") is not a path.
bool is_path(const std::string& source) {
  return !source.empty() && source[0] != '[';
}

}  // namespace

std::vector<std::string> input_folder_files(const std::string& dir) {
  if (!is_folder(dir)) fail("--input: '{}' is not a folder", dir);
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    std::error_code type_ec;
    if (name.empty() || name[0] == '.' || !entry.is_regular_file(type_ec)) continue;
    files.push_back(entry.path().string());
  }
  if (ec) fail("--input: cannot read the folder '{}' ({})", dir, ec.message());
  if (files.empty()) fail("--input: the folder '{}' holds no input files", dir);
  std::sort(files.begin(), files.end());
  return files;
}

bool has_input_folder(const BindOptions& options) {
  return std::any_of(options.inputs.begin(), options.inputs.end(),
                     [](const InputArg& a) { return is_path(a.source) && is_folder(a.source); });
}

std::vector<BindOptions> expand_input_folders(const BindOptions& options) {
  std::vector<std::vector<std::string>> files(options.inputs.size());
  size_t sets = 1;
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    const std::string& source = options.inputs[i].source;
    if (!is_path(source)) continue;
    std::error_code ec;
    if (!fs::exists(source, ec))
      fail("--input: '{}' does not exist (give a file, a folder of files or name=[values])",
           source);
    if (!is_folder(source)) continue;
    files[i] = input_folder_files(source);
    sets = std::max(sets, files[i].size());
  }
  std::vector<BindOptions> out(sets, options);
  for (size_t k = 0; k < sets; ++k)
    for (size_t i = 0; i < options.inputs.size(); ++i)
      if (!files[i].empty()) out[k].inputs[i].source = files[i][k % files[i].size()];
  return out;
}

std::vector<std::vector<BoundInput>> bind_input_sets(const ir::Graph& graph,
                                                     const BindOptions& options) {
  const std::vector<BindOptions> sets = expand_input_folders(options);
  std::vector<std::vector<BoundInput>> bound;
  for (size_t k = 0; k < sets.size(); ++k) {
    bound.push_back(bind_inputs(graph, sets[k]));
    if (k == 0) continue;
    for (size_t i = 0; i < bound[k].size(); ++i) {
      const Tensor& first = bound[0][i].tensor;
      const Tensor& t = bound[k][i].tensor;
      if (t.dtype() != first.dtype() || t.shape() != first.shape())
        fail(
            "--input: {} gives input '{}' {}{}, but {} gave {}{} (every file of a folder must "
            "have one type and shape)",
            bound[k][i].origin, graph.values[size_t(graph.inputs[i])].name, dtype_name(t.dtype()),
            t.shape_str(), bound[0][i].origin, dtype_name(first.dtype()), first.shape_str());
    }
  }
  // Name the folders, not their first files.
  for (size_t a = 0; a < options.inputs.size(); ++a) {
    const std::string& dir = options.inputs[a].source;
    if (sets[0].inputs[a].source == dir) continue;  // not a folder
    for (BoundInput& b : bound[0])
      if (b.origin == sets[0].inputs[a].source)
        b.origin = fmt::format("{} ({} files, round-robin)", dir, input_folder_files(dir).size());
  }
  return bound;
}

}  // namespace strata::runtime
