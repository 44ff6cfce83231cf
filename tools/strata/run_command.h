#pragma once

#include <CLI/CLI.hpp>

namespace strata::cli {

// Registers `strata run` on the app; the returned callback runs it and gives the exit code.
struct RunCommand;
RunCommand* add_run_command(CLI::App& app);
int execute(RunCommand& command);

}  // namespace strata::cli
