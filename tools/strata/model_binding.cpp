// The model options as the runtime's binding and session options (model_binding.h).
#include "model_binding.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

namespace strata::cli {

void add_tolerance_options(CLI::App* sub, runtime::Tolerance& tolerance, const std::string& what) {
  add_tolerance_options(sub, tolerance.rtol, tolerance.atol, what);
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
  std::vector<std::vector<runtime::BoundInput>> sets =
      runtime::bind_input_sets(bound.loaded.graph, bind);
  for (runtime::BoundInput& b : sets[0]) {
    bound.inputs.push_back(std::move(b.tensor));
    bound.origins.push_back(std::move(b.origin));
  }
  for (size_t k = 1; k < sets.size(); ++k) {
    std::vector<Tensor> tensors;
    for (runtime::BoundInput& b : sets[k]) tensors.push_back(std::move(b.tensor));
    bound.more_inputs.push_back(std::move(tensors));
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
    if (runtime::contains_nan(bound.inputs[i]))
      warn(fmt::format("input '{}' contains NaN", graph.values[size_t(graph.inputs[i])].name));
  report::stderr_progress().clear();
  return bound;
}

}  // namespace strata::cli
