// strata::check_writable, write_file, file_stem_of (include/strata/files.h): the file layer's own.
#include "strata/files.h"

#include "io/file.h"
#include "runtime/test_data.h"

namespace strata {

void check_writable(const std::string& path) {
  io::check_writable(path);
}

void write_file(const std::string& path, const std::string& text) {
  io::write_file(path, text);
}

std::string file_stem_of(const std::string& value_name) {
  return runtime::tensor_file_stem(value_name);
}

}  // namespace strata
