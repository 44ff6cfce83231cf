// `strata profile MODEL`: time every operator over many runs, with the profiler's own overhead,
// and show where the time goes (summary, top nodes, op types, scopes); write the profile as JSON
// and as a Chrome trace.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_binding.h"
#include "model_options.h"
#include "strata_internal.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

constexpr double kWeek = 7 * 24 * 3600.0;  // the longest --duration, as strata run's

struct ProfileOptions {
  ModelOptions model;
  profiler::ProfileRunOptions run;
  std::string json_path;
  std::string trace_path;
  std::string html_path;
  bool no_roofline = false;
  bool check_finite = false;
  bool duration_given = false;
  int streams = 0;  // --streams: not a profile's option (run's), refused with a pointer there
  report::ViewOptions view;
};

// The options that change the figures, for the record in the profile.
std::string options_record(const ProfileOptions& cmd) {
  std::string text = fmt::format("--warmup {} {} --threads {}", cmd.run.warmup,
                                 cmd.run.duration_seconds > 0
                                     ? fmt::format("--duration {:g}", cmd.run.duration_seconds)
                                     : fmt::format("--iter {}", cmd.run.iterations),
                                 cmd.model.threads);
  for (const std::string& i : cmd.model.inputs) text += " --input " + i;
  for (const std::string& s : cmd.model.shapes) text += " --shape " + s;
  for (const std::string& d : cmd.model.dims) text += " --dim " + d;
  if (cmd.model.inputs.empty()) text += fmt::format(" --seed {}", cmd.model.seed);
  text += " --layout " + cmd.model.layout;
  if (!cmd.model.optimize) text += " --no-optimize";
  if (!cmd.model.fast_kernels) text += " --reference-kernels";
  if (cmd.run.isolate)
    text += fmt::format(" --isolate --isolate-repeats {}", cmd.run.isolate_repeats);
  return text;
}

int execute_profile(const ProfileOptions& cmd) {
  if (cmd.streams > 0)
    fail(
        "--streams is a throughput mode of strata run (strata run MODEL --streams {}): concurrent "
        "sessions would disturb each other's per-node times, which profile measures",
        cmd.streams);
  if (cmd.duration_given && !(cmd.run.duration_seconds > 0 && cmd.run.duration_seconds <= kWeek))
    fail("--duration must be a number of seconds above 0 (at most a week), not {:g}",
         cmd.run.duration_seconds);
  const WarningSink warn = print_warnings();
  // Before minutes of runs, not after.
  report::check_column_names(cmd.view.columns);
  for (const std::string& path : {cmd.json_path, cmd.trace_path, cmd.html_path})
    if (!path.empty()) io::check_writable(path);

  BoundModel bound = load_and_bind(cmd.model, warn, "", true);
  optimize_for_session(bound, cmd.model);
  const auto t0 = std::chrono::steady_clock::now();
  runtime::Session session(bound.loaded.graph, bound.specs(), session_options(cmd.model, warn));
  const double prepare_ms = runtime::elapsed_ms(t0);
  report::ProgressLine& progress = report::stderr_progress();
  progress.clear();
  if (cmd.check_finite) {
    if (const auto bad = debug::find_non_finite(session, bound.input_pointers())) {
      fmt::print("finite: {}\n", debug::describe(*bad));
      return int(ErrorCode::kVerifyFailed);
    }
  }

  profiler::MachineInfo machine;
  if (cmd.no_roofline) {
    machine.cpu = profiler::cpu_model();
    machine.logical_cpus = profiler::logical_cpus();
  } else {
    profiler::MachineCacheOptions cache;
    cache.warn = warn;
    cache.progress = progress.callback();
    machine = profiler::machine_peaks(cmd.model.threads, cache);
  }

  profiler::ProfileRunOptions run = cmd.run;
  run.progress = progress.callback();
  profiler::Profile profile = profiler::profile_session(session, bound.input_sets(), run);
  progress.clear();
  profiler::stamp_profile(profile, cmd.model.model);
  profile.machine = machine;
  profile.threads = cmd.model.threads;
  profile.options = options_record(cmd);
  profile.load_ms = bound.load_ms;
  profile.prepare_ms = prepare_ms;
  profile.arena_bytes = session.stats().arena_bytes;
  std::vector<std::vector<int64_t>> input_shapes;
  for (const Tensor& t : bound.inputs) input_shapes.push_back(t.shape());
  report::join_static_analysis(profile, session.graph(), input_shapes);

  fmt::print("{}", report::render_views(profile, cmd.view));
  if (!cmd.json_path.empty()) {
    report::write_profile(profile, cmd.json_path);
    fmt::print("\nprofile written to {}\n", cmd.json_path);
  }
  if (!cmd.trace_path.empty()) {
    report::write_chrome_trace(profile, cmd.trace_path);
    fmt::print("{}trace written to {} (open it in https://ui.perfetto.dev or chrome://tracing)\n",
               cmd.json_path.empty() ? "\n" : "", cmd.trace_path);
  }
  if (!cmd.html_path.empty()) {
    report::write_html(cmd.html_path, "strata profile: " + profile.model,
                       report::profile_page_data(profile));
    fmt::print("{}report written to {} (open it in a browser)\n",
               cmd.json_path.empty() && cmd.trace_path.empty() ? "\n" : "", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_profile_command(CLI::App& app) {
  auto cmd = std::make_shared<ProfileOptions>();
  CLI::App* sub = app.add_subcommand(
      "profile", "time every operator of a model: where the time goes, with honest statistics");
  add_model_options(sub, cmd->model);
  sub->add_option("--warmup", cmd->run.warmup, "runs after the first (cold) one, not recorded")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  CLI::Option* iter =
      sub->add_option("--iter", cmd->run.iterations,
                      "profiled runs (as many unprofiled runs interleave to measure the overhead)")
          ->capture_default_str()
          ->check(CLI::PositiveNumber);
  sub->add_option_function<double>(
         "--duration",
         [cmd](double seconds) {
           cmd->run.duration_seconds = seconds;
           cmd->duration_given = true;
         },
         "profile runs until SECONDS have passed instead of counting them (--iter)")
      ->excludes(iter);
  sub->add_option("--streams", cmd->streams,
                  "not for profile: concurrent streams are strata run's throughput mode");
  sub->add_option("-o,--output", cmd->json_path,
                  "write the profile as JSON (docs/profile-format.md) for strata report/diff");
  sub->add_option("--trace", cmd->trace_path, "write a Chrome trace (Perfetto, chrome://tracing)");
  sub->add_option("--html", cmd->html_path,
                  "write a self-contained HTML report (charts and tables; docs/html-report.md)");
  sub->add_flag("--isolate", cmd->run.isolate,
                "also time each node alone on warm caches, beside its in-sequence time");
  sub->add_option("--isolate-repeats", cmd->run.isolate_repeats,
                  "timed repetitions per node with --isolate (the median is shown)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  sub->add_flag("--no-roofline", cmd->no_roofline,
                "do not read or measure the machine's peaks (no GFLOP/s share or bound)");
  sub->add_flag("--check-finite", cmd->check_finite,
                "run once first and stop at the first node whose output holds NaN or Inf "
                "(exit 1)");
  add_view_options(sub, cmd->view);
  return {sub, [cmd] { return execute_profile(*cmd); }};
}

}  // namespace strata::cli
