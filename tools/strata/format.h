// Human-readable figures for the terminal.
#pragma once

#include <fmt/format.h>
#include <strata/strata.h>

#include <cstdint>
#include <string>
#include <vector>

namespace strata::cli {

inline std::string human_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} {}", bytes, units[u])
                : fmt::format("{:.1f} {}", bytes, units[u]);
}

inline std::string tensor_type(const Tensor& t) {
  return fmt::format("{}{}", dtype_name(t.dtype()), t.shape_str());
}

}  // namespace strata::cli
