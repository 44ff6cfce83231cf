// `strata pack MODEL -o CASE`: the model, its inputs and the outputs strata computes, as an ONNX
// test case that `strata run CASE` verifies on another machine.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "model_options.h"
#include "strata/model.h"
#include "strata/progress.h"
#include "strata/session.h"

namespace strata::cli {

namespace {

struct PackOptions {
  ModelOptions model;
  std::string output_dir;
};

int execute_pack(const PackOptions& cmd) {
  const WarningSink warn = print_warnings();
  const Model model = Model::load(cmd.model.model, terminal_progress());
  for (const std::string& w : model.warnings()) warn(w);
  const NamedArrays inputs = bind_inputs(model, to_input_options(cmd.model, warn));
  clear_terminal_progress();
  Session session(model, inputs, to_session_options(cmd.model, warn));
  const Session::Packed packed = session.pack(cmd.output_dir, inputs);
  clear_terminal_progress();
  fmt::print("packed {} into {}\n", cmd.model.model, cmd.output_dir);
  for (size_t i = 0; i < packed.inputs.size(); ++i)
    fmt::print("{:<11}{}   {}: {} {}\n", i == 0 ? "inputs" : "", packed.inputs[i].file,
               packed.inputs[i].name, packed.inputs[i].type, inputs[i].origin);
  for (size_t i = 0; i < packed.outputs.size(); ++i)
    fmt::print("{:<11}{}  {}: {}\n", i == 0 ? "outputs" : "", packed.outputs[i].file,
               packed.outputs[i].name, packed.outputs[i].type);
  fmt::print("check it with: strata run {}\n", cmd.output_dir);
  return 0;
}

}  // namespace

Command add_pack_command(CLI::App& app) {
  auto cmd = std::make_shared<PackOptions>();
  CLI::App* sub = app.add_subcommand(
      "pack",
      "write the model, its inputs and the outputs strata computes as an ONNX test case folder");
  add_model_options(sub, cmd->model);
  sub->add_option("-o,--output", cmd->output_dir,
                  "the test case folder (model.onnx, test_data_set_0/input_N.pb, output_N.pb)")
      ->required();
  return {sub, [cmd] { return execute_pack(*cmd); }};
}

}  // namespace strata::cli
