// `strata analyze MODEL`: shapes, parameters, FLOPs and memory without running, with symbolic dims
// kept symbolic (formulas). The analysis itself lives in src/analyzer; the views in src/report.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>

#include "command.h"
#include "command_output.h"
#include "model_binding.h"
#include "model_options.h"
#include "strata_internal.h"

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

analyzer::AnalyzeOptions analyze_options(const ModelOptions& o) {
  analyzer::AnalyzeOptions options;
  for (const std::string& s : o.shapes) {
    auto [name, dims] = split_assignment(s, "--shape");
    options.input_shapes[name] = analyzer::parse_symbolic_shape(dims, "--shape " + name);
  }
  ModelOptions dims_only;  // --dim is parsed like `strata run` does; --shape above allows names
  dims_only.dims = o.dims;
  for (const auto& [name, size] : bind_options(dims_only).dims) options.dims[name] = size;
  return options;
}

int execute_analyze(const AnalyzeCommandOptions& cmd) {
  std::vector<std::string> warnings;
  const WarningSink warn = print_warnings(&warnings);
  for (const std::string& path : {cmd.json_path, cmd.html_path})
    if (!path.empty()) io::check_writable(path);  // before the work, not after
  const analyzer::AnalyzeOptions options = analyze_options(cmd.model);

  std::optional<report::ProgressTicker> ticker(std::in_place, report::stderr_progress(), "load");
  auto t0 = std::chrono::steady_clock::now();
  onnx_import::LoadResult loaded =
      onnx_import::load_model(cmd.model.model, {.read_weights = false});
  const double load_ms = runtime::elapsed_ms(t0);
  ticker.reset();
  for (const std::string& w : loaded.warnings) warn(w);
  const ir::Graph& graph = loaded.graph;

  ticker.emplace(report::stderr_progress(), "analysis");
  t0 = std::chrono::steady_clock::now();
  const analyzer::Analysis a = analyzer::analyze(graph, options);
  const double analysis_ms = runtime::elapsed_ms(t0);
  ticker.reset();
  report::stderr_progress().clear();
  for (const std::string& w : a.warnings) warn(w);

  fmt::print("strata {} analyze: {}\n", kVersion, cmd.model.model);
  fmt::print("{:<11}IR {}, opset {}, {} nodes{}\n", "model", graph.ir_version, graph.opset,
             graph.nodes.size(),
             graph.producer_name.empty()
                 ? ""
                 : fmt::format(", from {} {}", graph.producer_name, graph.producer_version));
  fmt::print("{:<11}{:.2f} ms (weights not read)\n", "load", load_ms);
  fmt::print("{:<11}{:.2f} ms ({} evaluation{} of the graph's shape and cost rules)\n", "analysis",
             analysis_ms, a.evaluations, a.evaluations == 1 ? "" : "s");
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Value& v = graph.values[size_t(graph.inputs[i])];
    fmt::print("{:<11}{}: {}{}\n", i == 0 ? "inputs" : "", v.name, dtype_name(v.dtype),
               a.input_shapes[i].str());
  }
  for (size_t s = 0; s < a.symbols.size(); ++s)
    fmt::print("{:<11}{}{}\n", s == 0 ? "symbols" : "", a.symbols[s],
               a.sizes[s] ? fmt::format(" = {}", *a.sizes[s]) : " (no size: formulas)");

  report::AnalysisViewOptions view;
  view.macs = cmd.macs;
  view.training = cmd.training;
  view.depth = cmd.depth;
  view.fit.width = cmd.wide ? 0 : report::terminal_width(1);  // files and pipes: every column
  view.fit.columns = cmd.columns;
  if (!cmd.by.empty()) {
    view.by_type = view.by_scope = view.by_node = false;
    for (const std::string& b : cmd.by) {
      view.by_type |= b == "type";
      view.by_scope |= b == "scope";
      view.by_node |= b == "node";
    }
  }
  fmt::print("\n{}", report::render_analysis_totals(a, view));
  fmt::print("{}", report::render_analysis_tables(graph, a, view));

  if (!cmd.json_path.empty()) {
    nlohmann::json report = report::analysis_json(graph, a);
    report["strata_version"] = kVersion;
    report["model"] = cmd.model.model;
    report["load_ms"] = load_ms;
    report["analysis_ms"] = analysis_ms;
    report["warnings"] = warnings;
    io::write_file(cmd.json_path, report.dump(2) + "\n");
  }
  if (!cmd.html_path.empty()) {
    const nlohmann::json about = {{"strata_version", kVersion},
                                  {"model", cmd.model.model},
                                  {"load_ms", load_ms},
                                  {"analysis_ms", analysis_ms}};
    report::write_html(cmd.html_path, "strata analyze: " + cmd.model.model,
                       report::analysis_page_data(graph, a, about));
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
