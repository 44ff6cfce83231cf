// `strata report PROFILE.json`: the tables of a saved profile, re-sliced without re-running.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "strata/files.h"
#include "strata/profile.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct ReportOptions {
  std::string profile_path;
  std::string html_path;
  ViewOptions view;
};

int execute_report(const ReportOptions& cmd) {
  if (!cmd.html_path.empty()) check_writable(cmd.html_path);
  const Profile profile = Profile::load(cmd.profile_path);
  fmt::print("{}", profile.render(cmd.view));
  if (!cmd.html_path.empty()) {
    profile.save_html(cmd.html_path);
    fmt::print("\nreport written to {} (open it in a browser)\n", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto cmd = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "show a saved profile (strata profile -o FILE) with any view, without re-running");
  sub->add_option("profile", cmd->profile_path, "profile JSON file written by strata profile -o")
      ->required();
  sub->add_option("--html", cmd->html_path,
                  "write a self-contained HTML report (charts and tables; docs/html-report.md)");
  add_view_options(sub, cmd->view);
  return {sub, [cmd] { return execute_report(*cmd); }};
}

}  // namespace strata::cli
