// `strata diff A.json B.json`: did B get faster or slower than A, beyond the noise?
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "strata_internal.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct DiffOptions {
  std::string path_a, path_b;
  std::string html_path;
  report::ViewOptions view;
  report::BootstrapOptions bootstrap;
};

int execute_diff(const DiffOptions& cmd) {
  if (!cmd.html_path.empty()) io::check_writable(cmd.html_path);
  const profiler::Profile a = report::read_profile(cmd.path_a);
  const profiler::Profile b = report::read_profile(cmd.path_b);
  const report::ProfileDiff diff = report::diff_profiles(a, b, cmd.bootstrap);
  fmt::print("{}", report::render_diff(diff, cmd.path_a, cmd.path_b, cmd.view));
  if (!cmd.html_path.empty()) {
    report::write_html(cmd.html_path, "strata diff",
                       report::diff_page_data(diff, cmd.path_a, cmd.path_b));
    fmt::print("\nreport written to {} (open it in a browser)\n", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_diff_command(CLI::App& app) {
  auto cmd = std::make_shared<DiffOptions>();
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
