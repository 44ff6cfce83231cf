#include "kernels/onednn/version.h"

#include <fmt/format.h>

#include <dnnl.hpp>

namespace strata::kernels::onednn {

std::string library_version() {
  const dnnl_version_t* v = dnnl_version();  // of the shared library actually loaded
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

PrimitiveCachePause::PrimitiveCachePause() : capacity_(dnnl::get_primitive_cache_capacity()) {
  dnnl::set_primitive_cache_capacity(0);
}

PrimitiveCachePause::~PrimitiveCachePause() {
  dnnl::set_primitive_cache_capacity(capacity_);
}

}  // namespace strata::kernels::onednn
