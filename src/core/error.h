// Error type and exit codes shared by the whole library.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace strata {

// Exit codes of the command line, also used to classify library errors.
enum class ErrorCode : int {
  kVerifyFailed = 1,  // outputs did not match the expected ones
  kBadInput = 2,      // the user's model, input or option is wrong or unsupported
  kInternal = 3,      // a bug in strata
};

// Thrown inside the library; caught at the public API boundary and turned into a Status.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

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
