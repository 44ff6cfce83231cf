#include "model_options.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "model_binding.h"

namespace strata::cli {

void add_model_options(CLI::App* sub, ModelOptions& o, unsigned groups) {
  if (!(groups & kNoModelPath)) sub->add_option("model", o.model, "ONNX model file")->required();
  if (groups & kInputs)
    sub->add_option("-i,--input", o.inputs,
                    "input: name=FILE, FILE (bound in order) or name=[1,2,3]; "
                    ".npy .pb .json .pgm .ppm .png .jpg");
  sub->add_option("--shape", o.shapes, "fix an input's shape: name=1x3x224x224");
  sub->add_option("--dim", o.dims, "give a named dynamic dimension a size: N=8");
  if (groups & kInputs)
    sub->add_option("--seed", o.seed, "seed for random inputs")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
  if (groups & kSession) {
    sub->add_option("--threads", o.threads, "threads for the kernels")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    sub->add_option("--max-memory", o.max_memory,
                    "refuse to allocate more than this (e.g. 8G, 512M)")
        ->capture_default_str();
    sub->add_option("--layout", o.layout,
                    "activation layout of the fast kernels: nchw, nhwc, blocked (nChw16c) or auto")
        ->capture_default_str();
    sub->add_flag("--no-optimize{false}", o.optimize,
                  "run the graph as written: no constant folding, fusion or dead-node removal");
    sub->add_flag("--reference-kernels{false}", o.fast_kernels,
                  "run every node with its op's reference kernel (no oneDNN)");
    sub->add_flag("--fast-run", o.fast_run,
                  "time every implementation of each node's fast kernels at prepare and keep the "
                  "fastest");
    sub->add_option("--algo-cache", o.algo_cache,
                    "file of fast-run choices: reused when made on this CPU with these versions, "
                    "written with --fast-run");
    sub->add_option("--timeout", o.timeout,
                    "stop a run that goes on past this many seconds (exit 2, naming the node "
                    "reached; loops are checked every iteration)")
        ->check(CLI::PositiveNumber);
  }
}

void add_tolerance_options(CLI::App* sub, runtime::Tolerance& tolerance, const std::string& what) {
  sub->add_option("--rtol", tolerance.rtol, "relative tolerance for " + what)
      ->capture_default_str();
  sub->add_option("--atol", tolerance.atol, "absolute tolerance for " + what)
      ->capture_default_str();
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) fail("{}: '{}' must look like name=value", option, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

int64_t parse_bytes(const std::string& text, const char* option) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    fail("{}: '{}' is not a size like 8G or 512M", option, text);
  }
  const std::string unit = text.substr(used);
  double scale = 1;
  if (unit == "K" || unit == "KiB")
    scale = 1024.0;
  else if (unit == "M" || unit == "MiB")
    scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    fail("{}: unknown unit '{}' (use K, M or G)", option, unit);
  if (!(value > 0) || value * scale > 9e18) fail("{}: '{}' is out of range", option, text);
  return int64_t(value * scale);
}

std::map<std::string, int64_t> parse_dims(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> sizes;
  for (const std::string& d : dims) {
    auto [name, value] = split_assignment(d, "--dim");
    if (value.empty() || value.size() > 12 ||
        value.find_first_not_of("0123456789") != std::string::npos)
      fail("--dim {}: '{}' is not a size (a whole number like 8)", name, value);
    sizes[name] = std::stoll(value);
  }
  return sizes;
}

runtime::BindOptions bind_options(const ModelOptions& o) {
  runtime::BindOptions bind;
  for (const std::string& a : o.inputs) bind.inputs.push_back(runtime::parse_input_arg(a));
  for (const std::string& s : o.shapes) {
    auto [name, dims] = split_assignment(s, "--shape");
    bind.shapes[name] = runtime::parse_shape(dims, "--shape " + name);
  }
  bind.dims = parse_dims(o.dims);
  bind.seed = o.seed;
  return bind;
}

runtime::SessionOptions session_options(const ModelOptions& o,
                                        const std::function<void(const std::string&)>& warn) {
  runtime::SessionOptions options;
  options.threads = o.threads;
  options.max_memory_bytes = parse_bytes(o.max_memory, "--max-memory");
  options.layout = kernels::parse_layout_policy(o.layout);
  options.fast_kernels = o.fast_kernels;
  options.fast_run = o.fast_run;
  options.timeout_seconds = o.timeout;
  options.progress = report::stderr_progress().callback();
  if (!o.algo_cache.empty()) {
    if (!o.fast_kernels)
      fail("--algo-cache chooses fast kernels; it cannot go with --reference-kernels");
    options.algo_cache = std::make_shared<runtime::AlgoCache>(o.algo_cache, warn);
    std::error_code ec;
    if (!o.fast_run && !std::filesystem::exists(o.algo_cache, ec))
      warn(
          fmt::format("{}: no algo cache there yet; the default kernels run (add --fast-run to "
                      "time every implementation and save the choices)",
                      o.algo_cache));
  }
  if (o.fast_run && !o.fast_kernels)
    fail("--fast-run times fast kernels; it cannot go with --reference-kernels");
  return options;
}

std::vector<passes::PassRecord> optimize_for_session(BoundModel& bound, const ModelOptions& o) {
  if (!o.optimize) return {};
  std::vector<std::vector<int64_t>> shapes;
  for (const Tensor& t : bound.inputs) shapes.push_back(t.shape());
  const report::ProgressTicker ticker(report::stderr_progress(), "optimize");
  passes::specialize_inputs(bound.loaded.graph, shapes);
  return passes::optimize_graph(bound.loaded.graph);
}

std::vector<runtime::InputSpec> BoundModel::specs() const {
  std::vector<runtime::InputSpec> specs;
  for (const Tensor& t : inputs) specs.push_back({t.dtype(), t.shape(), nullptr, t.kind()});
  return specs;
}

std::vector<const Tensor*> BoundModel::input_pointers() const {
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : inputs) pointers.push_back(&t);
  return pointers;
}

namespace {
bool has_nan(const Tensor& t) {
  bool found = false;
  visit_float(t.dtype(), [&]<class T>(Type<T>) {
    for (int64_t i = 0; i < t.numel() && !found; ++i) found = std::isnan(float(t.data<T>()[i]));
  });
  return found;
}
}  // namespace

std::vector<std::vector<const Tensor*>> BoundModel::input_sets() const {
  std::vector<std::vector<const Tensor*>> sets = {input_pointers()};
  for (const std::vector<Tensor>& set : more_inputs) {
    std::vector<const Tensor*> pointers;
    for (const Tensor& t : set) pointers.push_back(&t);
    sets.push_back(std::move(pointers));
  }
  return sets;
}

namespace {
// --input DIR: binds every input set; each must have the types of the first (one session serves
// one shape).
void bind_input_folders(BoundModel& bound, const runtime::BindOptions& bind) {
  const ir::Graph& graph = bound.loaded.graph;
  const std::vector<runtime::BindOptions> sets = runtime::expand_input_folders(bind);
  for (size_t k = 0; k < sets.size(); ++k) {
    std::vector<runtime::BoundInput> set = runtime::bind_inputs(graph, sets[k]);
    if (k == 0) {
      for (runtime::BoundInput& b : set) {
        bound.inputs.push_back(std::move(b.tensor));
        bound.origins.push_back(std::move(b.origin));
      }
      continue;
    }
    std::vector<Tensor> tensors;
    for (size_t i = 0; i < set.size(); ++i) {
      const Tensor& first = bound.inputs[i];
      const Tensor& t = set[i].tensor;
      if (t.dtype() != first.dtype() || t.shape() != first.shape())
        fail(
            "--input: {} gives input '{}' {}{}, but {} gave {}{} (every file of a folder must "
            "have one type and shape)",
            set[i].origin, graph.values[size_t(graph.inputs[i])].name, dtype_name(t.dtype()),
            t.shape_str(), bound.origins[i], dtype_name(first.dtype()), first.shape_str());
      tensors.push_back(std::move(set[i].tensor));
    }
    bound.more_inputs.push_back(std::move(tensors));
  }
  // Name the folders, not their first files.
  for (size_t a = 0; a < bind.inputs.size(); ++a) {
    const std::string& dir = bind.inputs[a].source;
    if (sets[0].inputs[a].source == dir) continue;  // not a folder
    for (std::string& origin : bound.origins)
      if (origin == sets[0].inputs[a].source)
        origin =
            fmt::format("{} ({} files, round-robin)", dir, runtime::input_folder_files(dir).size());
  }
}
}  // namespace

BoundModel load_and_bind(const ModelOptions& options,
                         const std::function<void(const std::string&)>& warn,
                         const std::string& test_data_dir, bool input_folders) {
  BoundModel bound;
  {
    const report::ProgressTicker ticker(report::stderr_progress(), "load");
    const auto t0 = std::chrono::steady_clock::now();
    bound.loaded = runtime::load_model(options.model);
    bound.load_ms = runtime::elapsed_ms(t0);
  }
  for (const std::string& w : bound.loaded.warnings) warn(w);
  const ir::Graph& graph = bound.loaded.graph;
  if (!test_data_dir.empty()) {
    if (!options.inputs.empty()) fail("--test-data and --input cannot be combined");
    runtime::TestData data = runtime::read_test_data(test_data_dir, graph);
    bound.inputs = std::move(data.inputs);
    bound.expected = std::move(data.expected);
    bound.origins.assign(bound.inputs.size(), test_data_dir);
  } else if (const runtime::BindOptions bind = bind_options(options);
             runtime::has_input_folder(bind)) {
    if (!input_folders)
      fail(
          "--input: a folder of inputs is for strata run and strata profile (one file per "
          "inference); give a file");
    bind_input_folders(bound, bind);
  } else {
    runtime::expand_input_folders(bind);  // names a source that does not exist
    for (runtime::BoundInput& b : runtime::bind_inputs(graph, bind)) {
      bound.inputs.push_back(std::move(b.tensor));
      bound.origins.push_back(std::move(b.origin));
    }
  }
  for (size_t i = 0; i < bound.inputs.size(); ++i)
    if (has_nan(bound.inputs[i]))
      warn(fmt::format("input '{}' contains NaN", graph.values[size_t(graph.inputs[i])].name));
  report::stderr_progress().clear();
  return bound;
}

}  // namespace strata::cli
