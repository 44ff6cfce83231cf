// `strata run MODEL`: load, bind inputs, prepare, warm up, time, verify, report.
#include "run_command.h"

#include <fmt/format.h>
#include <strata/strata.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "format.h"

namespace strata::cli {

void add_run_command(CLI::App& app, RunCommand& options) {
  RunCommand* cmd = &options;
  CLI::App* sub = app.add_subcommand("run", "load, run, verify and time a model");
  sub->add_option("model", cmd->model, "ONNX model file")->required();
  sub->add_option("-i,--input", cmd->inputs,
                  "input: name=FILE, FILE (bound in order) or name=[1,2,3]; "
                  ".npy .pb .json .pgm .ppm .png .jpg");
  sub->add_option("--shape", cmd->shapes, "fix an input's shape: name=1x3x224x224");
  sub->add_option("--dim", cmd->dims, "give a named dynamic dimension a size: N=8");
  sub->add_option("--seed", cmd->seed, "seed for random inputs")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--warmup", cmd->warmup,
                  "warm-up runs (timed and printed, left out of the statistics)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--iter", cmd->iterations, "timed runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--threads", cmd->threads, "threads for the kernels")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  sub->add_option("--dump-outputs", cmd->dump_dir, "write each output to DIR/NAME.npy");
  sub->add_option("--verify", cmd->verify_dir,
                  "compare outputs with DIR/NAME.npy or .pb (exit 1 on mismatch)");
  sub->add_option("--test-data", cmd->test_data_dir,
                  "run an ONNX test_data_set folder (input_N.pb, output_N.pb; exit 1 on mismatch)");
  sub->add_option("--rtol", cmd->rtol, "relative tolerance for --verify/--test-data")
      ->capture_default_str();
  sub->add_option("--atol", cmd->atol, "absolute tolerance for --verify/--test-data")
      ->capture_default_str();
  sub->add_option("--json", cmd->json_path, "write every figure as JSON to FILE");
  sub->add_option("--max-memory", cmd->max_memory,
                  "refuse to allocate more than this (e.g. 8G, 512M)")
      ->capture_default_str();
  sub->add_flag("-q,--quiet", cmd->quiet, "print the summary only, not every iteration");
}

namespace {

int64_t parse_bytes(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    fail("--max-memory: '{}' is not a size like 8G or 512M", text);
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
    fail("--max-memory: unknown unit '{}' (use K, M or G)", unit);
  if (!(value > 0) || value * scale > 9e18) fail("--max-memory: '{}' is out of range", text);
  return int64_t(value * scale);
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) fail("{}: '{}' must look like name=value", option, text);
  return {text.substr(0, eq), text.substr(eq + 1)};
}

bool has_nan(const Tensor& t) {
  bool found = false;
  visit_float(t.dtype(), [&]<class T>(Type<T>) {
    for (int64_t i = 0; i < t.numel() && !found; ++i) found = std::isnan(float(t.data<T>()[i]));
  });
  return found;
}

nlohmann::json summary_json(const profiler::Summary& s) {
  return {{"min", s.min}, {"median", s.median}, {"mean", s.mean}, {"sd", s.sd},
          {"p90", s.p90}, {"p99", s.p99},       {"max", s.max},   {"cv", s.cv}};
}

void print_times(const char* label, const std::vector<double>& ms) {
  std::string line;
  for (size_t i = 0; i < ms.size(); ++i)
    line += fmt::format("{}#{} {:.3f}", i ? "  " : "", i + 1, ms[i]);
  fmt::print("{:<11}{} ms\n", label, line);
}

}  // namespace

int execute(RunCommand& cmd) {
  nlohmann::json report;
  std::vector<std::string> warnings;
  auto warn = [&](const std::string& w) {
    fmt::print(stderr, "strata: warning: {}\n", w);
    warnings.push_back(w);
  };

  // Open the report file first: an unwritable path should fail before minutes of runs, not after.
  std::ofstream json_out;
  if (!cmd.json_path.empty()) {
    json_out.open(cmd.json_path);
    if (!json_out) fail("{}: cannot be written", cmd.json_path);
  }

  auto t0 = std::chrono::steady_clock::now();
  runtime::Model loaded = runtime::load_model(cmd.model);
  const double load_ms = runtime::elapsed_ms(t0);
  for (const std::string& w : loaded.warnings) warn(w);
  const ir::Graph& graph = loaded.graph;

  // Inputs: a test_data_set folder, or the --input arguments with random values for the rest.
  std::vector<Tensor> inputs;
  std::vector<std::string> origins;
  std::vector<Tensor> expected;
  if (!cmd.test_data_dir.empty()) {
    if (!cmd.inputs.empty()) fail("--test-data and --input cannot be combined");
    runtime::TestData data = runtime::read_test_data(cmd.test_data_dir, graph);
    inputs = std::move(data.inputs);
    expected = std::move(data.expected);
    origins.assign(inputs.size(), cmd.test_data_dir);
  } else {
    runtime::BindOptions bind;
    for (const std::string& a : cmd.inputs) bind.inputs.push_back(runtime::parse_input_arg(a));
    for (const std::string& s : cmd.shapes) {
      auto [name, dims] = split_assignment(s, "--shape");
      bind.shapes[name] = runtime::parse_shape(dims, "--shape " + name);
    }
    for (const std::string& d : cmd.dims) {
      auto [name, value] = split_assignment(d, "--dim");
      if (value.empty() || value.size() > 12 ||
          value.find_first_not_of("0123456789") != std::string::npos)
        fail("--dim {}: '{}' is not a size (a whole number like 8)", name, value);
      bind.dims[name] = std::stoll(value);
    }
    bind.seed = cmd.seed;
    for (runtime::BoundInput& b : runtime::bind_inputs(graph, bind)) {
      inputs.push_back(std::move(b.tensor));
      origins.push_back(std::move(b.origin));
    }
    if (!cmd.verify_dir.empty()) expected = runtime::read_expected_outputs(cmd.verify_dir, graph);
  }

  std::vector<runtime::InputSpec> specs;
  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) {
    specs.push_back({t.dtype(), t.shape()});
    input_ptrs.push_back(&t);
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (has_nan(inputs[i]))
      warn(fmt::format("input '{}' contains NaN", graph.values[size_t(graph.inputs[i])].name));

  runtime::SessionOptions options;
  options.threads = cmd.threads;
  options.max_memory_bytes = parse_bytes(cmd.max_memory);
  t0 = std::chrono::steady_clock::now();
  runtime::Session session(graph, specs, options);
  const double prepare_ms = runtime::elapsed_ms(t0);
  const runtime::PrepareStats& st = session.stats();

  if (!cmd.quiet) {
    fmt::print("strata {} run: {}\n", kVersion, cmd.model);
    fmt::print("{:<11}IR {}, opset {}, {} nodes{}\n", "model", graph.ir_version, graph.opset,
               graph.nodes.size(),
               graph.producer_name.empty()
                   ? ""
                   : fmt::format(", from {} {}", graph.producer_name, graph.producer_version));
    fmt::print("{:<11}{:.2f} ms\n", "load", load_ms);
    for (size_t i = 0; i < inputs.size(); ++i)
      fmt::print("{:<11}{}: {} {}\n", i == 0 ? "inputs" : "",
                 graph.values[size_t(graph.inputs[i])].name, tensor_type(inputs[i]), origins[i]);
    fmt::print(
        "{:<11}{:.2f} ms ({} steps, {} folded, {} dynamic; arena {}, lower bound {}; "
        "threads {})\n",
        "prepare", prepare_ms, session.steps().size(), st.folded_nodes, st.dynamic_nodes,
        human_bytes(double(st.arena_bytes)), human_bytes(double(st.lower_bound_bytes)),
        cmd.threads);
  }

  const runtime::RunTimings timings =
      runtime::time_runs(session, input_ptrs, cmd.warmup, cmd.iterations);
  const profiler::Summary s = profiler::summarize(timings.iterations_ms);
  if (!cmd.quiet) {
    if (!timings.warmup_ms.empty()) print_times("warmup", timings.warmup_ms);
    print_times("iterations", timings.iterations_ms);
  }
  fmt::print(
      "{:<11}min {:.3f}  median {:.3f}  mean {:.3f}  sd {:.3f}  p90 {:.3f}  p99 {:.3f}  "
      "max {:.3f} ms  CV {:.1f}%\n",
      "latency", s.min, s.median, s.mean, s.sd, s.p90, s.p99, s.max, s.cv * 100);
  const double throughput = s.median > 0 ? 1000.0 / s.median : 0;
  fmt::print("{:<11}{:.1f} inferences/s (from the median)\n", "throughput", throughput);
  const std::string unstable = profiler::stability_warning(s);
  if (!unstable.empty()) warn(unstable);

  // Outputs: print, dump, verify.
  nlohmann::json outputs_json = nlohmann::json::array();
  for (size_t i = 0; i < session.num_outputs(); ++i) {
    const std::string& name = graph.values[size_t(graph.outputs[i])].name;
    const Tensor& out = session.output(i);
    if (!cmd.quiet) fmt::print("{:<11}{}: {}\n", i == 0 ? "outputs" : "", name, tensor_type(out));
    outputs_json.push_back(
        {{"name", name}, {"dtype", dtype_name(out.dtype())}, {"shape", out.shape()}});
    if (!cmd.dump_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(cmd.dump_dir, ec);
      if (ec)
        fail("--dump-outputs: cannot create the folder '{}' ({})", cmd.dump_dir, ec.message());
      io::write_npy(
          (std::filesystem::path(cmd.dump_dir) / (runtime::tensor_file_stem(name) + ".npy"))
              .string(),
          out);
    }
  }
  bool all_ok = true;
  nlohmann::json verify_json;
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::string& name = graph.values[size_t(graph.outputs[i])].name;
    const runtime::Comparison c =
        runtime::compare(session.output(i), expected[i], {cmd.rtol, cmd.atol});
    all_ok &= c.ok;
    fmt::print("{:<11}{}: {}  max abs {:.3g}  max rel {:.3g}  cosine {:.6f}{}\n",
               i == 0 ? "verify" : "", name, c.ok ? "ok" : "MISMATCH", c.max_abs_error,
               c.max_rel_error, c.cosine, c.ok ? "" : "  (" + c.problem + ")");
    verify_json[name] = {{"ok", c.ok},
                         {"max_abs_error", c.max_abs_error},
                         {"max_rel_error", c.max_rel_error},
                         {"cosine", c.cosine},
                         {"mismatches", c.mismatches},
                         {"problem", c.problem}};
  }

  if (!cmd.json_path.empty()) {
    nlohmann::json inputs_json = nlohmann::json::array();
    for (size_t i = 0; i < inputs.size(); ++i)
      inputs_json.push_back({{"name", graph.values[size_t(graph.inputs[i])].name},
                             {"dtype", dtype_name(inputs[i].dtype())},
                             {"shape", inputs[i].shape()},
                             {"origin", origins[i]}});
    report = {{"strata_version", kVersion},
              {"model", cmd.model},
              {"threads", cmd.threads},
              {"load_ms", load_ms},
              {"prepare_ms", prepare_ms},
              {"warmup_ms", timings.warmup_ms},
              {"iterations_ms", timings.iterations_ms},
              {"latency_ms", summary_json(s)},
              {"throughput_per_s", throughput},
              {"plan",
               {{"steps", session.steps().size()},
                {"folded_nodes", st.folded_nodes},
                {"dynamic_nodes", st.dynamic_nodes},
                {"arena_bytes", st.arena_bytes},
                {"lower_bound_bytes", st.lower_bound_bytes},
                {"constant_bytes", st.constant_bytes}}},
              {"inputs", inputs_json},
              {"outputs", outputs_json},
              {"warnings", warnings}};
    if (!expected.empty()) report["verify"] = verify_json;
    json_out << report.dump(2) << "\n";
  }
  return all_ok ? 0 : int(ErrorCode::kVerifyFailed);
}

}  // namespace strata::cli
