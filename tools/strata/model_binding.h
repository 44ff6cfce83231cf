// What `strata run` makes of the model options: the
// runtime's binding and session options, the loaded model with its inputs. These use the library's
// internal headers (docs/api.md lists the commands that still do).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model_options.h"
#include "strata_internal.h"

namespace strata::cli {

// --rtol and --atol (defaults: runtime::Tolerance's), for comparisons of values; `what` says
// which option they apply to ("--verify/--test-data").
void add_tolerance_options(CLI::App* sub, runtime::Tolerance& tolerance, const std::string& what);

// --input, --shape, --dim and --seed as the runtime's binding options.
runtime::BindOptions bind_options(const ModelOptions& options);
// --threads, --max-memory, --layout, --reference-kernels, --fast-run and --algo-cache as session
// options; the algo cache's warnings go to `warn`.
runtime::SessionOptions session_options(const ModelOptions& options,
                                        const std::function<void(const std::string&)>& warn);

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
