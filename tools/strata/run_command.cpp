// `strata run MODEL`: load, bind inputs, prepare, warm up, time, verify, report.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "command.h"
#include "command_output.h"
#include "model_options.h"
#include "strata/errors.h"
#include "strata/files.h"
#include "strata/machine.h"
#include "strata/model.h"
#include "strata/progress.h"
#include "strata/session.h"
#include "strata/strata.h"
#include "strata/table.h"
#include "strata/tensor.h"
#include "strata/timing.h"
#include "strata/verify.h"

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
  CompareOptions tolerance = elementwise_tolerance();
  bool quiet = false;
  bool verbose = false;

  // --verify and --test-data hold each element to its own magnitude, as numpy's assert_allclose.
  static CompareOptions elementwise_tolerance() {
    CompareOptions options;
    options.elementwise = true;
    return options;
  }
};

// --duration and --streams: one sentence naming the option for a value that cannot work.
void check_throughput_options(const RunOptions& cmd) {
  constexpr double kMaxDurationSeconds = 7 * 24 * 3600.0;
  if (cmd.duration_given && !(cmd.duration > 0 && cmd.duration <= kMaxDurationSeconds))
    bad_option("--duration must be a number of seconds above 0 (at most a week), not {:g}",
               cmd.duration);
  if (cmd.streams < 1) bad_option("--streams must be at least 1, not {}", cmd.streams);
  if (cmd.streams > 1 && cmd.model.fast_run && cmd.model.algo_cache.empty())
    bad_option(
        "--streams with --fast-run needs --algo-cache FILE: the streams after the first run the "
        "kernels the first one chose, read from that file");
  const int cpus = logical_cpus();
  if (!cmd.oversubscribe && int64_t(cmd.streams) * cmd.model.threads > cpus)
    bad_option(
        "--streams {} × --threads {} needs {} CPUs but this machine has {}: lower them (or add "
        "--oversubscribe to share the CPUs, at the cost of every latency)",
        cmd.streams, cmd.model.threads, int64_t(cmd.streams) * cmd.model.threads, cpus);
}

std::string latency_line(const LatencySummary& s) {
  return fmt::format(
      "min {:.3f}  median {:.3f}  mean {:.3f}  sd {:.3f}  p90 {:.3f}  p99 {:.3f}  max {:.3f} ms  "
      "CV {:.1f}%",
      s.min_ms, s.median_ms, s.mean_ms, s.sd_ms, s.p90_ms, s.p99_ms, s.max_ms, s.cv * 100);
}

nlohmann::json latency_json(const LatencySummary& s) {
  return {{"min", s.min_ms}, {"median", s.median_ms}, {"mean", s.mean_ms}, {"sd", s.sd_ms},
          {"p90", s.p90_ms}, {"p99", s.p99_ms},       {"max", s.max_ms},   {"cv", s.cv}};
}

nlohmann::json streams_json(const Timings& timings) {
  nlohmann::json streams = nlohmann::json::array();
  for (const StreamTimes& t : timings.streams)
    streams.push_back({{"runs", t.iterations_ms.size()},
                       {"latency_ms", latency_json(summarize_latency(t.iterations_ms))},
                       {"iterations_ms", t.iterations_ms}});
  return streams;
}

nlohmann::json array_json(const NamedArray& a) {
  return {{"name", a.name}, {"dtype", dtype_name(a.array.dtype())}, {"shape", a.array.shape()}};
}

void print_times(const char* label, const std::vector<double>& ms) {
  std::string line;
  for (size_t i = 0; i < ms.size(); ++i)
    line += fmt::format("{}#{} {:.3f}", i ? "  " : "", i + 1, ms[i]);
  fmt::print("{:<11}{} ms\n", label, line);
}

// --verbose: the passes applied, then per step the kernel that runs it and why, its layout, the
// conversions it makes, and the model nodes a fused node stands for.
void print_plan(const PlanSummary& plan, const std::vector<StepInfo>& steps, int threads) {
  std::string line;
  for (const PassApplied& p : plan.passes)
    line += fmt::format("{}{} {}", line.empty() ? "" : ", ", p.name, p.changes);
  fmt::print("{:<11}{}\n", "passes", plan.passes.empty() ? "none (--no-optimize)" : line);
  for (const PassApplied& p : plan.passes)
    if (!p.note.empty()) fmt::print("{:<11}{}: {}\n", "", p.name, p.note);
  fmt::print("{:<11}{} of {} steps fast, {} layout conversions, {} of packed weights\n", "kernels",
             plan.fast_steps, plan.steps, plan.conversions, human_bytes(double(plan.packed_bytes)));
  for (size_t s = 0; s < steps.size(); ++s) {
    const StepInfo& step = steps[s];
    fmt::print("step {:<6}{} '{}'\n", s, step.op_type, step.node);
    if (!step.fused_from.empty())
      fmt::print("{:<11}fused from {}\n", "", fmt::join(step.fused_from, ", "));
    const bool alone = step.kernel != "reference" && threads > 1 && step.threads == 1;
    fmt::print("{:<11}kernel {}{}{}{}: {}\n", "", step.kernel,
               step.layout.empty() ? "" : ", writes " + step.layout,
               step.in_place ? " (sharing an input's buffer)" : "", alone ? ", on 1 thread" : "",
               step.reason);
    for (const std::string& c : step.conversions) fmt::print("{:<11}converts {}\n", "", c);
  }
}

// --dump-outputs: DIR/NAME.npy.
void dump_output(const NamedArray& out, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) bad_option("--dump-outputs: cannot create the folder '{}' ({})", dir, ec.message());
  save_npy((std::filesystem::path(dir) / (file_stem_of(out.name) + ".npy")).string(), out.array);
}

int execute_run(RunOptions& cmd) {
  if (const std::optional<TestCase> test_case = find_test_case(cmd.model.model)) {
    cmd.model.model = test_case->model;
    if (cmd.test_data_dir.empty()) cmd.test_data_dir = test_case->data_dir;
  }
  std::vector<std::string> warnings;
  const WarningSink warn = print_warnings(&warnings);

  check_throughput_options(cmd);
  if (!cmd.json_path.empty()) check_writable(cmd.json_path);  // before the work, not after
  if (!cmd.io_dump_path.empty()) check_writable(cmd.io_dump_path);

  const Model model = Model::load(cmd.model.model, terminal_progress());
  for (const std::string& w : model.warnings()) warn(w);
  std::vector<NamedArrays> input_sets;
  NamedArrays expected;
  if (!cmd.test_data_dir.empty()) {
    if (!cmd.model.inputs.empty()) bad_option("--test-data and --input cannot be combined");
    TestData data = read_test_data(model, cmd.test_data_dir, warn);
    input_sets.push_back(std::move(data.inputs));
    expected = std::move(data.expected);
  } else {
    input_sets = bind_input_sets(model, to_input_options(cmd.model, warn));
    if (!cmd.verify_dir.empty()) expected = read_expected_outputs(model, cmd.verify_dir);
  }
  clear_terminal_progress();
  const NamedArrays& inputs = input_sets[0];
  const int threads = cmd.model.threads;

  Session session(model, inputs, to_session_options(cmd.model, warn));
  // --streams: more sessions of the same graph, reading its weights in place; each has its own
  // arena (and its own packed copies of the weights the fast kernels pack). With --fast-run they
  // take the first session's choices from the algo cache, not time again.
  std::vector<Session> more_sessions;
  const ProgressFn progress = terminal_progress();
  for (int s = 1; s < cmd.streams; ++s) {
    if (progress) progress("streams", s, cmd.streams);
    more_sessions.push_back(session.clone());
  }
  std::vector<Session*> sessions = {&session};
  for (Session& s : more_sessions) sessions.push_back(&s);
  const PlanSummary plan = session.plan();
  const std::vector<StepInfo> steps = session.steps();
  clear_terminal_progress();

  if (!cmd.quiet) {
    fmt::print("strata {} run: {}\n", version(), cmd.model.model);
    fmt::print("{:<11}IR {}, opset {}, {} nodes{}\n", "model", model.ir_version(), model.opset(),
               plan.nodes, model.producer().empty() ? "" : ", from " + model.producer());
    fmt::print("{:<11}{:.2f} ms\n", "load", model.load_ms());
    for (size_t i = 0; i < inputs.size(); ++i)
      fmt::print("{:<11}{}: {} {}\n", i == 0 ? "inputs" : "", inputs[i].name,
                 inputs[i].array.type_string(), inputs[i].origin);
    fmt::print(
        "{:<11}{:.2f} ms ({} steps, {} folded, {} dynamic; arena {}, lower bound {}; "
        "threads {})\n",
        "prepare", session.prepare_ms(), plan.steps, plan.folded_nodes, plan.dynamic_nodes,
        human_bytes(double(plan.arena_bytes)), human_bytes(double(plan.lower_bound_bytes)),
        threads);
  }
  if (cmd.verbose) print_plan(plan, steps, threads);

  if (cmd.check_finite) {
    if (const std::string bad = session.first_non_finite(inputs); !bad.empty()) {
      fmt::print("{:<11}{}\n", "finite", bad);
      return int(ErrorCode::kVerifyFailed);
    }
    if (!cmd.quiet) fmt::print("{:<11}every node's outputs are finite\n", "finite");
  }
  if (!cmd.dump_all_dir.empty() || !cmd.io_dump_path.empty()) {
    const DumpSummary dump = session.dump_all(inputs, cmd.dump_all_dir);
    if (!cmd.dump_all_dir.empty() && !cmd.quiet)
      fmt::print("{:<11}{} values of {} nodes to {}\n", "dump-all", dump.values, dump.nodes,
                 cmd.dump_all_dir);
    if (!cmd.io_dump_path.empty()) {
      write_file(cmd.io_dump_path, dump.io_summary);
      if (!cmd.quiet) fmt::print("{:<11}{}\n", "io-dump", cmd.io_dump_path);
    }
  }

  TimingOptions timing;
  timing.warmup = cmd.warmup;
  timing.iterations = cmd.iterations;
  timing.duration_seconds = cmd.duration;
  timing.progress = progress;
  const Timings timings = time_runs(sessions, input_sets, timing);
  clear_terminal_progress();
  if (input_sets.size() > 1) session.run(inputs);  // outputs and --verify: the first set
  const std::vector<double> all_ms = timings.iterations_ms();  // every timed run of every stream
  const std::vector<double>& warmup_ms = timings.streams[0].warmup_ms;
  const LatencySummary s = summarize_latency(all_ms);
  const bool by_count = cmd.duration <= 0 && cmd.streams == 1;
  if (!cmd.quiet) {
    if (!warmup_ms.empty() && cmd.streams == 1) print_times("warmup", warmup_ms);
    if (by_count) print_times("iterations", all_ms);
  }
  if (!by_count)
    fmt::print("{:<11}{} timed runs in {:.2f} s{}{}\n", "runs", timings.timed_runs(),
               timings.wall_ms / 1000,
               cmd.duration > 0 ? fmt::format(" (--duration {:g} s)", cmd.duration) : "",
               cmd.streams > 1 ? fmt::format(", {} streams of {} thread{}", cmd.streams, threads,
                                             threads == 1 ? "" : "s")
                               : "");
  fmt::print("{:<11}{}\n", "latency", latency_line(s));
  if (cmd.streams > 1)
    for (size_t k = 0; k < timings.streams.size(); ++k)
      fmt::print("{:<11}{} ({} runs)\n", fmt::format("stream {}", k),
                 latency_line(summarize_latency(timings.streams[k].iterations_ms)),
                 timings.streams[k].iterations_ms.size());
  // One stream: from the median, as a user of the latency expects. Streams overlap: the runs
  // finished over the wall time is the only honest figure.
  const double throughput =
      cmd.streams > 1 ? timings.throughput_per_s() : (s.median_ms > 0 ? 1000.0 / s.median_ms : 0);
  fmt::print("{:<11}{:.1f} inferences/s ({})\n", "throughput", throughput,
             cmd.streams > 1 ? "timed runs of all streams over the wall time" : "from the median");
  for (const std::string& w : timings.warnings()) warn(w);
  for (const std::string& w : session.slow_path_warnings(inputs)) warn(w);

  // Outputs: print, dump, verify.
  const NamedArrays outputs = session.outputs();
  nlohmann::json outputs_json = nlohmann::json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!cmd.quiet)
      fmt::print("{:<11}{}: {}\n", i == 0 ? "outputs" : "", outputs[i].name,
                 outputs[i].array.type_string());
    outputs_json.push_back(array_json(outputs[i]));
    if (!cmd.dump_dir.empty()) dump_output(outputs[i], cmd.dump_dir);
  }
  bool all_ok = true;
  nlohmann::json verify_json;
  const std::vector<ValueComparison> checked = verify_outputs(outputs, expected, cmd.tolerance);
  for (size_t i = 0; i < checked.size(); ++i) {
    const ValueComparison& c = checked[i];
    all_ok &= c.ok;
    fmt::print("{:<11}{}: {}  max abs {:.3g}  max rel {:.3g}  cosine {:.6f}{}\n",
               i == 0 ? "verify" : "", c.value, c.ok ? "ok" : "MISMATCH", c.max_abs_error,
               c.max_rel_error, c.cosine, c.ok ? "" : "  (" + c.problem + ")");
    verify_json[c.value] = {{"ok", c.ok},
                            {"max_abs_error", c.max_abs_error},
                            {"max_rel_error", c.max_rel_error},
                            {"cosine", c.cosine},
                            {"mismatches", c.mismatches},
                            {"problem", c.problem}};
  }

  if (!cmd.json_path.empty()) {
    nlohmann::json inputs_json = nlohmann::json::array();
    for (const NamedArray& in : inputs) {
      inputs_json.push_back(array_json(in));
      inputs_json.back()["origin"] = in.origin;
    }
    nlohmann::json kernels_json = nlohmann::json::array();
    for (const StepInfo& step : steps)
      kernels_json.push_back({{"node", step.node},
                              {"op_type", step.op_type},
                              {"kernel", step.kernel},
                              {"reason", step.reason},
                              {"threads", step.threads},
                              {"layout", step.layout}});
    nlohmann::json report = {
        {"strata_version", version()},
        {"model", cmd.model.model},
        {"threads", threads},
        {"load_ms", model.load_ms()},
        {"prepare_ms", session.prepare_ms()},
        {"warmup_ms", warmup_ms},
        {"iterations_ms", all_ms},
        {"latency_ms", latency_json(s)},
        {"throughput_per_s", throughput},
        {"settings",
         {{"warmup", cmd.warmup},
          {"iterations",
           cmd.duration > 0 ? nlohmann::json(nullptr) : nlohmann::json(cmd.iterations)},
          {"duration_s", cmd.duration > 0 ? nlohmann::json(cmd.duration) : nlohmann::json(nullptr)},
          {"streams", cmd.streams},
          {"input_sets", input_sets.size()}}},
        {"timed_runs", timings.timed_runs()},
        {"wall_ms", timings.wall_ms},
        {"streams", streams_json(timings)},
        {"plan",
         {{"steps", plan.steps},
          {"folded_nodes", plan.folded_nodes},
          {"dynamic_nodes", plan.dynamic_nodes},
          {"arena_bytes", plan.arena_bytes},
          {"lower_bound_bytes", plan.lower_bound_bytes},
          {"constant_bytes", plan.constant_bytes},
          {"kernels", kernels_json}}},
        {"inputs", inputs_json},
        {"outputs", outputs_json},
        {"warnings", warnings}};
    if (!expected.empty()) report["verify"] = verify_json;
    write_file(cmd.json_path, report.dump(2) + "\n");
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
  add_tolerance_options(sub, cmd->tolerance.rtol, cmd->tolerance.atol, "--verify/--test-data");
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
