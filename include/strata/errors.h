// Errors of the strata API. Every function of include/strata/ reports a failure by throwing
// strata::Error: one sentence naming the file, tensor or node at fault (the message the `strata`
// command prints), and a code that is also the command's exit status.
//
//   try {
//     strata::Model model = strata::Model::load("model.onnx");
//   } catch (const strata::Error& e) {
//     std::fprintf(stderr, "%s\n", e.what());  // "model.onnx: cannot open (No such file ...)"
//     return int(e.code());                    // 2: the model, an input or an option is wrong
//   }
#pragma once

#include <stdexcept>
#include <string>

namespace strata {

// Exit codes of the command line, also used to classify library errors.
enum class ErrorCode : int {
  kVerifyFailed = 1,  // outputs did not match the expected ones
  kBadInput = 2,      // the user's model, input or option is wrong or unsupported
  kInternal = 3,      // a bug in strata
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace strata
