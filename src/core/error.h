// Error type and exit codes shared by the whole library.
#pragma once

#include <fmt/format.h>

#include <string>

#include "strata/errors.h"  // ErrorCode, Error: part of the public API

namespace strata {

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorCode::kBadInput, fmt::format(format, std::forward<Args>(args)...));
}

template <class... Args>
[[noreturn]] void fail_internal(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorCode::kInternal, fmt::format(format, std::forward<Args>(args)...));
}

// Thrown by shape rules that need a value or a dimension not known before running
// (a Reshape target computed from data, a symbolic dim used as a number).
// The session then resolves that node's output shapes at run time.
struct NotStatic {};

}  // namespace strata
