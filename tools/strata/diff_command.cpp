// `strata diff A.json B.json`: did B get faster or slower than A, beyond the noise?
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "strata/diff.h"
#include "strata/files.h"
#include "strata/profile.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct DiffCommandOptions {
  std::string path_a, path_b;
  std::string html_path;
  ViewOptions view;
  DiffOptions bootstrap;
};

int execute_diff(const DiffCommandOptions& cmd) {
  if (!cmd.html_path.empty()) check_writable(cmd.html_path);
  DiffOptions options = cmd.bootstrap;
  options.label_a = cmd.path_a;
  options.label_b = cmd.path_b;
  const Profile a = Profile::load(cmd.path_a);  // A's errors first
  const Profile b = Profile::load(cmd.path_b);
  const ProfileDiff diff = diff_profiles(a, b, options);
  fmt::print("{}", diff.render(cmd.view));
  if (!cmd.html_path.empty()) {
    diff.save_html(cmd.html_path);
    fmt::print("\nreport written to {} (open it in a browser)\n", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto cmd = std::make_shared<DiffCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "diff", "compare two saved profiles: whole run, per node and per op type, with significance");
  sub->add_option("a", cmd->path_a, "baseline profile (strata profile -o)")->required();
  sub->add_option("b", cmd->path_b, "profile to compare with the baseline")->required();
  sub->add_option("--html", cmd->html_path,
                  "write a self-contained HTML report (per-node change with confidence "
                  "intervals; docs/html-report.md)");
  add_node_filter_options(sub, cmd->view);
  add_fit_options(sub, cmd->view);
  sub->add_option("--confidence", cmd->bootstrap.confidence,
                  "confidence level of the bootstrap intervals")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  sub->add_option_function<double>(
         "--min-change", [cmd](double pct) { cmd->bootstrap.min_change = pct / 100; },
         "smallest change in % called faster or slower: the interval must lie beyond it "
         "[default: 2]")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--resamples", cmd->bootstrap.resamples, "bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
  return {sub, [cmd] { return execute_diff(*cmd); }};
}

}  // namespace strata::cli
