// `strata analyze MODEL`: shapes, parameters, FLOPs and memory without running, with symbolic dims
// kept symbolic (formulas). The analysis itself lives in src/analyzer; the views in src/report.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_options.h"
#include "strata/analysis.h"
#include "strata/files.h"
#include "strata/progress.h"
#include "strata/strata.h"
#include "strata/views.h"

namespace strata::cli {

namespace {

struct AnalyzeCommandOptions {
  ModelOptions model;
  bool macs = false;
  bool flops = false;
  bool training = false;
  std::vector<std::string> by;
  int depth = 0;
  std::string json_path;
  std::string html_path;
  bool wide = false;
  std::vector<std::string> columns;
};

AnalysisOptions analysis_options(const ModelOptions& o) {
  AnalysisOptions options;
  for (const std::string& s : o.shapes) {
    auto [name, dims] = split_assignment(s, "--shape");
    options.shapes[name] = dims;
  }
  options.shape_option = "--shape";
  options.dims = parse_dims(o.dims);  // as `strata run` reads --dim; --shape above allows names
  return options;
}

int execute_analyze(const AnalyzeCommandOptions& cmd) {
  for (const std::string& path : {cmd.json_path, cmd.html_path})
    if (!path.empty()) check_writable(path);  // before the work, not after
  AnalysisOptions options = analysis_options(cmd.model);
  options.warn = print_warnings();
  options.progress = terminal_progress();
  const Analysis a = analyze(cmd.model.model, options);
  clear_terminal_progress();

  const AnalysisAbout& about = a.about();
  fmt::print("strata {} analyze: {}\n", version(), cmd.model.model);
  fmt::print("{:<11}IR {}, opset {}, {} nodes{}\n", "model", about.ir_version, about.opset,
             about.nodes,
             about.producer_name.empty()
                 ? ""
                 : fmt::format(", from {} {}", about.producer_name, about.producer_version));
  fmt::print("{:<11}{:.2f} ms (weights not read)\n", "load", about.load_ms);
  fmt::print("{:<11}{:.2f} ms ({} evaluation{} of the graph's shape and cost rules)\n", "analysis",
             about.analysis_ms, about.evaluations, about.evaluations == 1 ? "" : "s");
  for (size_t i = 0; i < about.inputs.size(); ++i)
    fmt::print("{:<11}{}: {}\n", i == 0 ? "inputs" : "", about.inputs[i].name,
               about.inputs[i].type);
  for (size_t s = 0; s < about.symbols.size(); ++s)
    fmt::print("{:<11}{}{}\n", s == 0 ? "symbols" : "", about.symbols[s].name,
               about.symbols[s].size ? fmt::format(" = {}", *about.symbols[s].size)
                                     : " (no size: formulas)");

  AnalysisViewOptions view;
  view.macs = cmd.macs;
  view.training = cmd.training;
  view.depth = cmd.depth;
  view.fit.width = cmd.wide ? 0 : terminal_width(1);  // files and pipes: every column
  view.fit.columns = cmd.columns;
  if (!cmd.by.empty()) {
    view.by_type = view.by_scope = view.by_node = false;
    for (const std::string& b : cmd.by) {
      view.by_type |= b == "type";
      view.by_scope |= b == "scope";
      view.by_node |= b == "node";
    }
  }
  fmt::print("\n{}", a.render(view));

  if (!cmd.json_path.empty()) a.save_json(cmd.json_path);
  if (!cmd.html_path.empty()) {
    a.save_html(cmd.html_path);
    fmt::print("\nreport written to {} (open it in a browser)\n", cmd.html_path);
  }
  return 0;
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
  auto cmd = std::make_shared<AnalyzeCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "analyze",
      "shapes, parameters, FLOPs and memory without running (symbolic dims give formulas)");
  add_model_options(sub, cmd->model, kShapesOnly);
  CLI::Option* macs = sub->add_flag("--macs", cmd->macs, "headline multiply-accumulates");
  CLI::Option* flops = sub->add_flag("--flops", cmd->flops, "headline FLOPs (the default)");
  macs->excludes(flops);
  sub->add_flag("--training", cmd->training,
                "also the backward pass: FLOPs, saved activations, memory with SGD and Adam");
  sub->add_option("--by", cmd->by, "tables to print: type, scope, node (default: all three)")
      ->check(CLI::IsMember({"type", "scope", "node"}));
  sub->add_option("--depth", cmd->depth, "scope tree: deepest level shown (0: all)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--json", cmd->json_path, "write every figure as JSON to FILE");
  sub->add_option("--html", cmd->html_path,
                  "write a self-contained HTML report (charts and tables; docs/html-report.md)");
  sub->add_option("--columns", cmd->columns,
                  "show only these columns besides the names (the names in the note under a "
                  "fitted table: headers in lower case, '_' for spaces)")
      ->delimiter(',');
  sub->add_flag("--wide", cmd->wide,
                "every column even on a terminal (files and pipes always get every column)");
  return {sub, [cmd] { return execute_analyze(*cmd); }};
}

}  // namespace strata::cli
