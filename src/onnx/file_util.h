// Reading files whole, with clear errors naming them.
#pragma once

#include <cstdint>
#include <string>

namespace strata::onnx_import {

// The whole file as bytes; fails naming the path when it is missing, unreadable, a folder or empty.
std::string read_file_bytes(const std::string& path, const char* kind);

}  // namespace strata::onnx_import
