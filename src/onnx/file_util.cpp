#include "onnx/file_util.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace strata::onnx_import {

std::string read_file_bytes(const std::string& path, const char* kind) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail("{}: no such file", path);
  if (fs::is_directory(status)) fail("{}: is a folder, not {}", path, kind);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot be opened for reading", path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("{}: read error", path);
  if (bytes.empty()) fail("{}: the file is empty", path);
  return bytes;
}

}  // namespace strata::onnx_import
