// `strata pack MODEL -o CASE`: the model, its inputs and the outputs strata computes, as an ONNX
// test case that `strata run CASE` verifies on another machine.
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "format.h"
#include "model_binding.h"
#include "model_options.h"
#include "strata_internal.h"

namespace strata::cli {

namespace {

struct PackOptions {
  ModelOptions model;
  std::string output_dir;
};

int execute_pack(const PackOptions& cmd) {
  const WarningSink warn = print_warnings();
  BoundModel bound = load_and_bind(cmd.model, warn);
  optimize_for_session(bound, cmd.model);
  runtime::Session session(bound.loaded.graph, bound.specs(), session_options(cmd.model, warn));
  session.run(bound.input_pointers());
  report::stderr_progress().clear();
  std::vector<const Tensor*> outputs;
  for (size_t i = 0; i < session.num_outputs(); ++i) outputs.push_back(&session.output(i));
  const ir::Graph& graph = session.graph();
  debug::write_test_case(cmd.output_dir, cmd.model.model, graph, bound.inputs, outputs);
  fmt::print("packed {} into {}\n", cmd.model.model, cmd.output_dir);
  for (size_t i = 0; i < bound.inputs.size(); ++i)
    fmt::print("{:<11}input_{}.pb   {}: {} {}\n", i == 0 ? "inputs" : "", i,
               graph.values[size_t(graph.inputs[i])].name, tensor_type(bound.inputs[i]),
               bound.origins[i]);
  for (size_t i = 0; i < outputs.size(); ++i)
    fmt::print("{:<11}output_{}.pb  {}: {}\n", i == 0 ? "outputs" : "", i,
               graph.values[size_t(graph.outputs[i])].name, tensor_type(*outputs[i]));
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
