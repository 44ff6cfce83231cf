// Overflow-checked size arithmetic: every byte and element count derived from a file goes through
// here.
#pragma once

#include <cstdint>
#include <span>

#include "core/error.h"

namespace strata {

// Largest element count any single tensor may have (2^40): far above any real model,
// far below what would overflow byte counts.
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

inline int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) || r > kMaxElements)
    fail("size overflow: {} x {} is too large", a, b);
  return r;
}

inline int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail("size overflow: {} + {}", a, b);
  return r;
}

// Element count of a concrete shape; fails on negative dims or overflow.
inline int64_t checked_numel(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) fail("negative dimension {}", d);
    n = checked_mul(n, d);
  }
  return n;
}

}  // namespace strata
