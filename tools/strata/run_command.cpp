// `strata run MODEL`: load, bind inputs, prepare, warm up, time, verify, report.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "command.h"
#include "command_output.h"
#include "format.h"
#include "model_binding.h"
#include "model_options.h"
#include "strata_internal.h"

namespace strata::cli {

namespace {

// The options of `strata run`, filled by CLI11.
struct RunOptions {
  ModelOptions model;
  int warmup = 1;
  int iterations = 10;
  double duration = 0;  // --duration SECONDS (0: --iter counts)
  bool duration_given = false;
  int streams = 1;  // --streams N
  bool oversubscribe = false;
  std::string dump_dir;
  std::string verify_dir;
  std::string test_data_dir;
  std::string json_path;
  std::string dump_all_dir;  // --dump-all
  std::string io_dump_path;  // --io-dump
  bool check_finite = false;
  runtime::Tolerance tolerance;
  bool quiet = false;
  bool verbose = false;
};

// --duration and --streams: one sentence naming the option for a value that cannot work.
void check_throughput_options(const RunOptions& cmd) {
  constexpr double kMaxDurationSeconds = 7 * 24 * 3600.0;
  if (cmd.duration_given && !(cmd.duration > 0 && cmd.duration <= kMaxDurationSeconds))
    fail("--duration must be a number of seconds above 0 (at most a week), not {:g}", cmd.duration);
  if (cmd.streams < 1) fail("--streams must be at least 1, not {}", cmd.streams);
  if (cmd.streams > 1 && cmd.model.fast_run && cmd.model.algo_cache.empty())
    fail(
        "--streams with --fast-run needs --algo-cache FILE: the streams after the first run the "
        "kernels the first one chose, read from that file");
  const int cpus = profiler::logical_cpus();
  if (!cmd.oversubscribe && int64_t(cmd.streams) * cmd.model.threads > cpus)
    fail(
        "--streams {} × --threads {} needs {} CPUs but this machine has {}: lower them (or add "
        "--oversubscribe to share the CPUs, at the cost of every latency)",
        cmd.streams, cmd.model.threads, int64_t(cmd.streams) * cmd.model.threads, cpus);
}

std::string latency_line(const profiler::Summary& s) {
  return fmt::format(
      "min {:.3f}  median {:.3f}  mean {:.3f}  sd {:.3f}  p90 {:.3f}  p99 {:.3f}  max {:.3f} ms  "
      "CV {:.1f}%",
      s.min, s.median, s.mean, s.sd, s.p90, s.p99, s.max, s.cv * 100);
}

nlohmann::json streams_json(const runtime::StreamsResult& timings) {
  nlohmann::json streams = nlohmann::json::array();
  for (const runtime::StreamTimings& t : timings.streams)
    streams.push_back({{"runs", t.iterations_ms.size()},
                       {"latency_ms", report::summary_json(profiler::summarize(t.iterations_ms))},
                       {"iterations_ms", t.iterations_ms}});
  return streams;
}

void print_times(const char* label, const std::vector<double>& ms) {
  std::string line;
  for (size_t i = 0; i < ms.size(); ++i)
    line += fmt::format("{}#{} {:.3f}", i ? "  " : "", i + 1, ms[i]);
  fmt::print("{:<11}{} ms\n", label, line);
}

// --verbose: the passes applied, then per step the kernel that runs it and why, its layout, the
// conversions it makes, and the model nodes a fused node stands for.
void print_plan(const runtime::Session& session, const std::vector<passes::PassRecord>& passes) {
  std::string line;
  for (const passes::PassRecord& p : passes)
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", p.name, p.changes);
  fmt::print("{:<11}{}\n", "passes", passes.empty() ? "none (--no-optimize)" : line);
  const runtime::PrepareStats& st = session.stats();
  fmt::print("{:<11}{} of {} steps fast, {} layout conversions, {} of packed weights\n", "kernels",
             st.fast_steps, session.steps().size(), st.conversions,
             human_bytes(double(st.packed_bytes)));
  const ir::Graph& graph = session.graph();
  for (size_t s = 0; s < session.steps().size(); ++s) {
    const runtime::StepInfo& step = session.steps()[s];
    const ir::Node& node = graph.nodes[step.node_index];
    fmt::print("step {:<6}{} '{}'\n", s, node.op_type, node.name);
    if (!node.fused_from.empty())
      fmt::print("{:<11}fused from {}\n", "", fmt::join(node.fused_from, ", "));
    const bool alone =
        step.kernel != "reference" && session.options().threads > 1 && step.threads == 1;
    fmt::print("{:<11}kernel {}{}{}{}: {}\n", "", step.kernel,
               step.layout.empty() ? "" : ", writes " + step.layout,
               step.in_place ? " (sharing an input's buffer)" : "", alone ? ", on 1 thread" : "",
               step.reason);
    for (const std::string& c : step.conversions) fmt::print("{:<11}converts {}\n", "", c);
  }
}

int execute_run(RunOptions& cmd) {
  if (const std::optional<debug::TestCase> test_case = debug::find_test_case(cmd.model.model)) {
    cmd.model.model = test_case->model;
    if (cmd.test_data_dir.empty()) cmd.test_data_dir = test_case->data_dir;
  }
  nlohmann::json report;
  std::vector<std::string> warnings;
  const WarningSink warn = print_warnings(&warnings);

  check_throughput_options(cmd);
  if (!cmd.json_path.empty()) io::check_writable(cmd.json_path);  // before the work, not after
  if (!cmd.io_dump_path.empty()) io::check_writable(cmd.io_dump_path);

  BoundModel bound = load_and_bind(cmd.model, warn, cmd.test_data_dir, true);
  const std::string signature = debug::model_signature(bound.loaded.graph);  // before the passes
  const std::vector<passes::PassRecord> passes_applied = optimize_for_session(bound, cmd.model);
  const ir::Graph& graph = bound.loaded.graph;
  const std::vector<Tensor>& inputs = bound.inputs;
  const std::vector<std::string>& origins = bound.origins;
  std::vector<Tensor> expected = std::move(bound.expected);
  if (cmd.test_data_dir.empty() && !cmd.verify_dir.empty())
    expected = runtime::read_expected_outputs(cmd.verify_dir, graph);
  const std::vector<const Tensor*> input_ptrs = bound.input_pointers();
  const double load_ms = bound.load_ms;
  const int threads = cmd.model.threads;

  auto t0 = std::chrono::steady_clock::now();
  const runtime::SessionOptions options = session_options(cmd.model, warn);
  runtime::Session session(graph, bound.specs(), options);
  const double prepare_ms = runtime::elapsed_ms(t0);
  // --streams: more sessions of the same graph, reading its weights in place; each has its own
  // arena (and its own packed copies of the weights the fast kernels pack).
  std::vector<std::unique_ptr<runtime::Session>> more_sessions;
  // With --fast-run they take the first session's choices from the algo cache, not time again.
  runtime::SessionOptions stream_options = options;
  stream_options.progress = nullptr;
  stream_options.fast_run = false;
  for (int s = 1; s < cmd.streams; ++s) {
    report::stderr_progress().update("streams", s, cmd.streams);
    more_sessions.push_back(
        std::make_unique<runtime::Session>(graph, bound.specs(), stream_options));
  }
  std::vector<runtime::Session*> sessions = {&session};
  for (const auto& s : more_sessions) sessions.push_back(s.get());
  const std::vector<std::vector<const Tensor*>> input_sets = bound.input_sets();
  const runtime::PrepareStats& st = session.stats();
  report::ProgressLine& progress = report::stderr_progress();
  progress.clear();

  if (!cmd.quiet) {
    fmt::print("strata {} run: {}\n", kVersion, cmd.model.model);
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
        human_bytes(double(st.arena_bytes)), human_bytes(double(st.lower_bound_bytes)), threads);
  }
  if (cmd.verbose) print_plan(session, passes_applied);

  if (cmd.check_finite) {
    if (const auto bad = debug::find_non_finite(session, input_ptrs)) {
      fmt::print("{:<11}{}\n", "finite", debug::describe(*bad));
      return int(ErrorCode::kVerifyFailed);
    }
    if (!cmd.quiet) fmt::print("{:<11}every node's outputs are finite\n", "finite");
  }
  if (!cmd.dump_all_dir.empty() || !cmd.io_dump_path.empty()) {
    const debug::Dump dump = debug::record_run(session, input_ptrs, signature);
    if (!cmd.dump_all_dir.empty()) {
      debug::write_dump(dump, cmd.dump_all_dir);
      if (!cmd.quiet)
        fmt::print("{:<11}{} values of {} nodes to {}\n", "dump-all", dump.values.size(),
                   dump.nodes.size(), cmd.dump_all_dir);
    }
    if (!cmd.io_dump_path.empty()) {
      io::write_file(cmd.io_dump_path, debug::io_summary(dump));
      if (!cmd.quiet) fmt::print("{:<11}{}\n", "io-dump", cmd.io_dump_path);
    }
  }

  const profiler::UsageReading usage_from = profiler::read_usage();
  runtime::StreamPlan plan;
  plan.warmup = cmd.warmup;
  plan.iterations = cmd.iterations;
  plan.duration_seconds = cmd.duration;
  plan.progress = progress.callback();
  const runtime::StreamsResult timings = runtime::run_streams(sessions, input_sets, plan);
  progress.clear();
  const profiler::UsageReading usage_to = profiler::read_usage();
  if (input_sets.size() > 1) session.run(input_ptrs);  // outputs and --verify: the first set
  std::vector<double> all_ms;                          // every timed run of every stream
  for (const runtime::StreamTimings& t : timings.streams)
    all_ms.insert(all_ms.end(), t.iterations_ms.begin(), t.iterations_ms.end());
  const std::vector<double>& warmup_ms = timings.streams[0].warmup_ms;
  const profiler::Summary s = profiler::summarize(all_ms);
  const bool by_count = cmd.duration <= 0 && cmd.streams == 1;
  if (!cmd.quiet) {
    if (!warmup_ms.empty() && cmd.streams == 1) print_times("warmup", warmup_ms);
    if (by_count) print_times("iterations", all_ms);
  }
  if (!by_count)
    fmt::print("{:<11}{} timed runs in {:.2f} s{}{}\n", "runs", timings.inferences(),
               timings.wall_ms / 1000,
               cmd.duration > 0 ? fmt::format(" (--duration {:g} s)", cmd.duration) : "",
               cmd.streams > 1 ? fmt::format(", {} streams of {} thread{}", cmd.streams, threads,
                                             threads == 1 ? "" : "s")
                               : "");
  fmt::print("{:<11}{}\n", "latency", latency_line(s));
  if (cmd.streams > 1)
    for (size_t k = 0; k < timings.streams.size(); ++k)
      fmt::print("{:<11}{} ({} runs)\n", fmt::format("stream {}", k),
                 latency_line(profiler::summarize(timings.streams[k].iterations_ms)),
                 timings.streams[k].iterations_ms.size());
  // One stream: from the median, as a user of the latency expects. Streams overlap: the runs
  // finished over the wall time is the only honest figure.
  const double throughput =
      cmd.streams > 1 ? timings.throughput_per_s() : (s.median > 0 ? 1000.0 / s.median : 0);
  fmt::print("{:<11}{:.1f} inferences/s ({})\n", "throughput", throughput,
             cmd.streams > 1 ? "timed runs of all streams over the wall time" : "from the median");
  const std::string unstable = profiler::stability_warning(s);
  if (!unstable.empty()) warn(unstable);
  const std::string busy =
      profiler::contention_warning(threads * cmd.streams, profiler::logical_cpus(),
                                   profiler::process_cpu_pct(usage_from, usage_to),
                                   profiler::system_cpu_pct(usage_from, usage_to));
  if (!busy.empty()) warn(busy);
  for (const std::string& w : profiler::slow_path_warnings(session, input_ptrs)) warn(w);

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
    const runtime::Comparison c = runtime::compare(session.output(i), expected[i], cmd.tolerance);
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
    nlohmann::json kernels_json = nlohmann::json::array();
    for (const runtime::StepInfo& step : session.steps())
      kernels_json.push_back({{"node", graph.nodes[step.node_index].name},
                              {"op_type", graph.nodes[step.node_index].op_type},
                              {"kernel", step.kernel},
                              {"reason", step.reason},
                              {"threads", step.threads},
                              {"layout", step.layout}});
    report = {
        {"strata_version", kVersion},
        {"model", cmd.model.model},
        {"threads", threads},
        {"load_ms", load_ms},
        {"prepare_ms", prepare_ms},
        {"warmup_ms", warmup_ms},
        {"iterations_ms", all_ms},
        {"latency_ms", report::summary_json(s)},
        {"throughput_per_s", throughput},
        {"settings",
         {{"warmup", cmd.warmup},
          {"iterations",
           cmd.duration > 0 ? nlohmann::json(nullptr) : nlohmann::json(cmd.iterations)},
          {"duration_s", cmd.duration > 0 ? nlohmann::json(cmd.duration) : nlohmann::json(nullptr)},
          {"streams", cmd.streams},
          {"input_sets", input_sets.size()}}},
        {"timed_runs", timings.inferences()},
        {"wall_ms", timings.wall_ms},
        {"streams", streams_json(timings)},
        {"plan",
         {{"steps", session.steps().size()},
          {"folded_nodes", st.folded_nodes},
          {"dynamic_nodes", st.dynamic_nodes},
          {"arena_bytes", st.arena_bytes},
          {"lower_bound_bytes", st.lower_bound_bytes},
          {"constant_bytes", st.constant_bytes},
          {"kernels", kernels_json}}},
        {"inputs", inputs_json},
        {"outputs", outputs_json},
        {"warnings", warnings}};
    if (!expected.empty()) report["verify"] = verify_json;
    io::write_file(cmd.json_path, report.dump(2) + "\n");
  }
  return all_ok ? 0 : int(ErrorCode::kVerifyFailed);
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto cmd = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "load, run, verify and time a model");
  add_model_options(sub, cmd->model);
  sub->get_option("model")->description(
      "ONNX model file, or a test case folder (strata pack): run and verified with its "
      "test_data_set_0");
  sub->add_option("--warmup", cmd->warmup,
                  "warm-up runs (timed and printed, left out of the statistics)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  CLI::Option* iter = sub->add_option("--iter", cmd->iterations, "timed runs")
                          ->capture_default_str()
                          ->check(CLI::PositiveNumber);
  sub->add_option_function<double>(
         "--duration",
         [cmd](double seconds) {
           cmd->duration = seconds;
           cmd->duration_given = true;
         },
         "time runs until SECONDS have passed instead of counting them (--iter)")
      ->excludes(iter);
  sub->add_option("--streams", cmd->streams,
                  "run N inferences at once on N sessions sharing the weights (throughput; "
                  "streams × threads must not exceed the CPUs)")
      ->capture_default_str();
  sub->add_flag("--oversubscribe", cmd->oversubscribe,
                "allow --streams × --threads above the CPU count");
  sub->add_option("--dump-outputs", cmd->dump_dir, "write each output to DIR/NAME.npy");
  sub->add_option("--verify", cmd->verify_dir,
                  "compare outputs with DIR/NAME.npy or .pb (exit 1 on mismatch)");
  sub->add_option("--test-data", cmd->test_data_dir,
                  "run an ONNX test_data_set folder (input_N.pb, output_N.pb; exit 1 on mismatch)");
  add_tolerance_options(sub, cmd->tolerance, "--verify/--test-data");
  sub->add_option("--dump-all", cmd->dump_all_dir,
                  "write every node's outputs of one inference to DIR/NAME.npy, with "
                  "DIR/index.json (for strata compare)");
  sub->add_option("--io-dump", cmd->io_dump_path,
                  "write a text summary of every node's outputs of one inference to FILE");
  sub->add_flag("--check-finite", cmd->check_finite,
                "run once first and stop at the first node whose output holds NaN or Inf "
                "(exit 1)");
  sub->add_option("--json", cmd->json_path, "write every figure as JSON to FILE");
  sub->add_flag("-q,--quiet", cmd->quiet, "print the summary only, not every iteration");
  sub->add_flag("-v,--verbose", cmd->verbose,
                "print the passes applied and, per step, the kernel, why, its layout and the "
                "nodes a fused node came from");
  return {sub, [cmd] { return execute_run(*cmd); }};
}

}  // namespace strata::cli
