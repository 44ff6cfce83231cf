// Options shared by the commands that load a model and bind its inputs (run, profile, analyze).
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "strata/errors.h"
#include "strata/session.h"

namespace strata::cli {

struct ModelOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> shapes;
  std::vector<std::string> dims;
  uint64_t seed = 0;
  int threads = 1;
  std::string max_memory = "16G";
  std::string layout = "auto";  // --layout
  bool optimize = true;         // --no-optimize clears it
  bool fast_kernels = true;     // --reference-kernels clears it
  bool fast_run = false;        // --fast-run
  std::string algo_cache;       // --algo-cache FILE
  double timeout = 0;           // --timeout SECONDS (0: none)
};

// Which option groups a command takes besides the model path, --shape and --dim.
enum ModelOptionGroups : unsigned {
  kShapesOnly = 0,
  kInputs = 1,   // --input, --seed
  kSession = 2,  // --threads, --max-memory, --layout, --no-optimize, --reference-kernels,
                 // --fast-run, --algo-cache, --timeout
  kAllModelOptions = kInputs | kSession,
  kNoModelPath = 8,  // the command takes the model path itself (compare: a model or two dumps)
};

void add_model_options(CLI::App* sub, ModelOptions& options, unsigned groups = kAllModelOptions);

// --rtol and --atol, for comparisons of values; `what` says which values ("each value").
void add_tolerance_options(CLI::App* sub, double& rtol, double& atol, const std::string& what);

// A bad option or combination of options: strata::Error with exit code 2.
template <class... Args>
[[noreturn]] void bad_option(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorCode::kBadInput, fmt::format(format, std::forward<Args>(args)...));
}

// "name=value" split at the first '='; fails naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option);

// --dim's "N=8" values as sizes by name; fails naming the dim.
std::map<std::string, int64_t> parse_dims(const std::vector<std::string>& dims);

// "8G", "512M", "1024" → bytes; fails naming `option`.
int64_t parse_bytes(const std::string& text, const char* option);

using Warn = std::function<void(const std::string&)>;

// --input, --shape, --dim and --seed as the API's input options; `warn` gets each input's NaN.
InputOptions to_input_options(const ModelOptions& options, const Warn& warn);
// --threads, --max-memory, --layout, --no-optimize, --reference-kernels, --fast-run,
// --algo-cache and --timeout as the API's session options, with the terminal's progress line;
// an algo cache that does not exist yet is warned about.
SessionOptions to_session_options(const ModelOptions& options, const Warn& warn);

}  // namespace strata::cli
