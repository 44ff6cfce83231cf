// strata::check_writable (include/strata/files.h): the file layer's own check.
#include "strata/files.h"

#include "io/file.h"

namespace strata {

void check_writable(const std::string& path) {
  io::check_writable(path);
}

}  // namespace strata
