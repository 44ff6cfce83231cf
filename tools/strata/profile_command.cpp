// `strata profile MODEL`: time every operator over many runs, with the profiler's own overhead,
// and show where the time goes (summary, top nodes, op types, scopes); write the profile as JSON
// and as a Chrome trace.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_options.h"
#include "strata/files.h"
#include "strata/model.h"
#include "strata/profile.h"
#include "strata/progress.h"
#include "strata/session.h"
#include "strata/views.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

constexpr double kWeek = 7 * 24 * 3600.0;  // the longest --duration, as strata run's

struct ProfileCommandOptions {
  ModelOptions model;
  ProfileOptions run;
  std::string json_path;
  std::string trace_path;
  std::string html_path;
  bool no_roofline = false;
  bool check_finite = false;
  bool duration_given = false;
  int streams = 0;  // --streams: not a profile's option (run's), refused with a pointer there
  ViewOptions view;
};

// The options that change the figures, for the record in the profile.
std::string options_record(const ProfileCommandOptions& cmd) {
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

int execute_profile(const ProfileCommandOptions& cmd) {
  if (cmd.streams > 0)
    bad_option(
        "--streams is a throughput mode of strata run (strata run MODEL --streams {}): concurrent "
        "sessions would disturb each other's per-node times, which profile measures",
        cmd.streams);
  if (cmd.duration_given && !(cmd.run.duration_seconds > 0 && cmd.run.duration_seconds <= kWeek))
    bad_option("--duration must be a number of seconds above 0 (at most a week), not {:g}",
               cmd.run.duration_seconds);
  const WarningSink warn = print_warnings();
  // Before minutes of runs, not after.
  check_view_columns(cmd.view.columns);
  for (const std::string& path : {cmd.json_path, cmd.trace_path, cmd.html_path})
    if (!path.empty()) check_writable(path);

  const Model model = Model::load(cmd.model.model, terminal_progress());
  for (const std::string& w : model.warnings()) warn(w);
  const std::vector<NamedArrays> input_sets =
      bind_input_sets(model, to_input_options(cmd.model, warn));
  clear_terminal_progress();
  Session session(model, input_sets[0], to_session_options(cmd.model, warn));
  clear_terminal_progress();
  if (cmd.check_finite) {
    if (const std::string bad = session.first_non_finite(input_sets[0]); !bad.empty()) {
      fmt::print("finite: {}\n", bad);
      return int(ErrorCode::kVerifyFailed);
    }
  }

  ProfileOptions options = cmd.run;
  options.roofline = !cmd.no_roofline;
  options.progress = terminal_progress();
  options.warn = warn;
  options.record = options_record(cmd);
  const Profile profile = strata::profile(session, input_sets, options);
  clear_terminal_progress();

  fmt::print("{}", profile.render(cmd.view));
  if (!cmd.json_path.empty()) {
    profile.save_json(cmd.json_path);
    fmt::print("\nprofile written to {}\n", cmd.json_path);
  }
  if (!cmd.trace_path.empty()) {
    profile.save_trace(cmd.trace_path);
    fmt::print("{}trace written to {} (open it in https://ui.perfetto.dev or chrome://tracing)\n",
               cmd.json_path.empty() ? "\n" : "", cmd.trace_path);
  }
  if (!cmd.html_path.empty()) {
    profile.save_html(cmd.html_path);
    fmt::print("{}report written to {} (open it in a browser)\n",
               cmd.json_path.empty() && cmd.trace_path.empty() ? "\n" : "", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_profile_command(CLI::App& app) {
  auto cmd = std::make_shared<ProfileCommandOptions>();
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
