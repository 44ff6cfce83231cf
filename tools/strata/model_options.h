// Options shared by the commands that load a model and bind its inputs (run, profile, analyze).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "strata_internal.h"

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

// --rtol and --atol (defaults: runtime::Tolerance's), for comparisons of values; `what` says
// which option they apply to ("--verify/--test-data").
void add_tolerance_options(CLI::App* sub, runtime::Tolerance& tolerance, const std::string& what);

// "name=value" split at the first '='; fails naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option);
// --input, --shape, --dim and --seed as the runtime's binding options.
runtime::BindOptions bind_options(const ModelOptions& options);
// --threads, --max-memory, --layout, --reference-kernels, --fast-run and --algo-cache as session
// options; the algo cache's warnings go to `warn`.
runtime::SessionOptions session_options(const ModelOptions& options,
                                        const std::function<void(const std::string&)>& warn);
// "8G", "512M", "1024" → bytes; fails naming `option`.
int64_t parse_bytes(const std::string& text, const char* option);

// A loaded model with its inputs bound (from files, inline values or random).
struct BoundModel {
  runtime::Model loaded;
  double load_ms = 0;
  std::vector<Tensor> inputs;
  std::vector<std::string> origins;  // where each input came from
  std::vector<Tensor> expected;      // expected outputs, from a test_data_set folder
  // Input sets after the first, from --input DIR (file k of each folder in set k).
  std::vector<std::vector<Tensor>> more_inputs;
  std::vector<runtime::InputSpec> specs() const;
  std::vector<const Tensor*> input_pointers() const;
  // Every input set, `inputs` first (round-robin over them: strata run).
  std::vector<std::vector<const Tensor*>> input_sets() const;
};

// Runs the graph optimisation passes on the loaded model unless --no-optimize; returns what each
// pass did (empty when off).
std::vector<passes::PassRecord> optimize_for_session(BoundModel& bound,
                                                     const ModelOptions& options);

// Loads options.model and binds its inputs, or reads them with the expected outputs from an ONNX
// test_data_set folder when `test_data_dir` is given. `warn` receives each warning. An --input
// that names a folder gives one input set per file when `input_folders`, else fails.
BoundModel load_and_bind(const ModelOptions& options,
                         const std::function<void(const std::string&)>& warn,
                         const std::string& test_data_dir = "", bool input_folders = false);

}  // namespace strata::cli
