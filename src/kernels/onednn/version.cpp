#include "kernels/onednn/version.h"

#include <fmt/format.h>

#include <dnnl.hpp>

namespace strata::kernels::onednn {

std::string library_version() {
  const dnnl_version_t* v = dnnl_version();  // of the shared library actually loaded
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

}  // namespace strata::kernels::onednn
