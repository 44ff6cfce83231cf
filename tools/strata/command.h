// One CLI subcommand: its CLI11 registration and what runs when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace strata::cli {

struct Command {
  CLI::App* subcommand = nullptr;
  // Returns the exit code; errors throw strata::Error and are reported by main.
  std::function<int()> execute;
};

// Each command in command_list.inc defines add_<name>_command in tools/strata/<name>_command.cpp.
#define STRATA_COMMAND(name) Command add_##name##_command(CLI::App& app);
#include "command_list.inc"
#undef STRATA_COMMAND

}  // namespace strata::cli
