// Human-readable figures for the terminal.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata_internal.h"

namespace strata::cli {

using report::human_bytes;

inline std::string tensor_type(const Tensor& t) {
  return fmt::format("{}{}", dtype_name(t.dtype()), t.shape_str());
}

}  // namespace strata::cli
