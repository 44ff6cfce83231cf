// `strata compare A B` (two dumps) or `strata compare MODEL --against X` (two runs): value by
// value in execution order, and the first node that diverges.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_options.h"
#include "strata/compare.h"
#include "strata/progress.h"
#include "strata/views.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct CompareCommandOptions {
  std::vector<std::string> paths;  // two dumps, or the model with --against
  std::string against;
  ModelOptions model;
  CompareOptions compare;  // --rtol, --atol, --elementwise
  ViewOptions view;        // --columns, --wide
};

int execute_compare(CompareCommandOptions& cmd) {
  check_column_names(cmd.view.columns, {comparison_columns()});
  CompareOptions options = cmd.compare;
  options.fit = fit_options(cmd.view);
  Comparison c;
  if (cmd.against.empty()) {
    if (cmd.paths.size() != 2)
      bad_option("compare takes two dumps (folders or .npz files), or a model with --against");
    c = compare_dumps(cmd.paths[0], cmd.paths[1], options);
  } else {
    if (cmd.paths.size() != 1)
      bad_option("compare --against takes one model, not {} paths (inputs go with -i)",
                 cmd.paths.size());
    cmd.model.model = cmd.paths[0];
    const WarningSink warn = print_warnings();
    const Model model = Model::load(cmd.model.model, terminal_progress());
    for (const std::string& w : model.warnings()) warn(w);
    const NamedArrays inputs = bind_inputs(model, to_input_options(cmd.model, warn));
    clear_terminal_progress();
    c = compare_runs(model, inputs, cmd.against, to_session_options(cmd.model, warn), options);
  }
  clear_terminal_progress();
  fmt::print("{}", c.report);
  return c.agree() ? 0 : int(ErrorCode::kVerifyFailed);
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto cmd = std::make_shared<CompareCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "compare every value of two dumps (or of two runs of a model with --against) and name the "
      "first node that diverges");
  sub->add_option("paths", cmd->paths,
                  "two dumps (--dump-all folders, folders of NAME.npy, .npz files), or one model "
                  "with --against")
      ->required()
      ->expected(1, 2);
  sub->add_option("--against", cmd->against,
                  "run MODEL twice and compare with: reference (--reference-kernels), a layout "
                  "(nchw, nhwc, blocked, auto), threads=N, or a saved dump DIR");
  add_model_options(sub, cmd->model, kAllModelOptions | kNoModelPath);
  add_tolerance_options(sub, cmd->compare.rtol, cmd->compare.atol, "each value");
  sub->add_flag("--elementwise", cmd->compare.elementwise,
                "hold each element to rtol times its own magnitude, as run --verify does, not "
                "times the larger of it and the tensor's root mean square");
  add_fit_options(sub, cmd->view);
  return {sub, [cmd] { return execute_compare(*cmd); }};
}

}  // namespace strata::cli
