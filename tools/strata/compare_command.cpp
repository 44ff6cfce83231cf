// `strata compare A B` (two dumps) or `strata compare MODEL --against X` (two runs): value by
// value in execution order, and the first node that diverges.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_binding.h"
#include "model_options.h"
#include "strata_internal.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct CompareOptions {
  std::vector<std::string> paths;  // two dumps, or the model with --against
  std::string against;
  ModelOptions model;
  runtime::Tolerance tolerance = [] {
    runtime::Tolerance t;
    t.relative_to_tensor = true;  // inner values: see runtime::Tolerance
    return t;
  }();
  bool elementwise = false;
  report::ViewOptions view;  // --columns, --wide
};

int execute_compare(CompareOptions& cmd) {
  report::check_column_names(cmd.view.columns, {debug::comparison_columns()});
  if (cmd.elementwise) cmd.tolerance.relative_to_tensor = false;
  debug::Dump a, b;
  std::string label_a, label_b;
  if (cmd.against.empty()) {
    if (cmd.paths.size() != 2)
      fail("compare takes two dumps (folders or .npz files), or a model with --against");
    a = debug::read_dump(cmd.paths[0]);
    b = debug::read_dump(cmd.paths[1]);
    label_a = cmd.paths[0];
    label_b = cmd.paths[1];
  } else {
    if (cmd.paths.size() != 1)
      fail("compare --against takes one model, not {} paths (inputs go with -i)", cmd.paths.size());
    cmd.model.model = cmd.paths[0];
    const debug::Against against = debug::parse_against(cmd.against);
    const WarningSink warn = print_warnings();
    BoundModel bound = load_and_bind(cmd.model, warn);
    const std::string sha = debug::model_signature(bound.loaded.graph);
    optimize_for_session(bound, cmd.model);
    const runtime::SessionOptions options = session_options(cmd.model, warn);
    {
      runtime::Session session(bound.loaded.graph, bound.specs(), options);
      a = debug::record_run(session, bound.input_pointers(), sha);
    }
    label_a = cmd.model.model;
    label_b = against.label;
    if (against.kind == debug::Against::Kind::kDump) {
      b = debug::read_dump(against.path);
    } else {
      runtime::Session session(bound.loaded.graph, bound.specs(),
                               debug::against_options(against, options));
      b = debug::record_run(session, bound.input_pointers(), sha);
    }
  }
  report::stderr_progress().clear();
  const debug::DumpComparison c = debug::compare_dumps(a, b, cmd.tolerance);
  fmt::print("{}", debug::render_comparison(c, label_a, label_b, cmd.tolerance,
                                            report::fit_options(cmd.view)));
  return c.agree() ? 0 : int(ErrorCode::kVerifyFailed);
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto cmd = std::make_shared<CompareOptions>();
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
  add_tolerance_options(sub, cmd->tolerance, "each value");
  sub->add_flag("--elementwise", cmd->elementwise,
                "hold each element to rtol times its own magnitude, as run --verify does, not "
                "times the larger of it and the tensor's root mean square");
  add_fit_options(sub, cmd->view);
  return {sub, [cmd] { return execute_compare(*cmd); }};
}

}  // namespace strata::cli
