// The strata command line: parses options, calls the library, prints. No logic of its own.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <new>
#include <vector>

#include "command.h"
#include "command_output.h"
#include "strata/strata.h"  // the public API: Error, ErrorCode, version()

int main(int argc, char** argv) {
  CLI::App app{"strata: load an ONNX model, run it on the CPU, and tell where the time goes"};
  app.set_version_flag("--version", std::string("strata ") + strata::version());
  app.require_subcommand(1);
  std::vector<strata::cli::Command> commands;
#define STRATA_COMMAND(name) commands.push_back(strata::cli::add_##name##_command(app));
#include "command_list.inc"
#undef STRATA_COMMAND
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "strata: error: {}\n", e.what());
    return int(strata::ErrorCode::kBadInput);
  }
  // The error line replaces a progress line left on the terminal.
  try {
    for (const strata::cli::Command& command : commands)
      if (command.subcommand->parsed()) return command.execute();
  } catch (const strata::Error& e) {
    strata::cli::clear_progress_line();
    fmt::print(stderr, "strata: error: {}\n", e.what());
    return int(e.code());
  } catch (const std::bad_alloc&) {
    strata::cli::clear_progress_line();
    fmt::print(stderr, "strata: error: out of memory\n");
    return int(strata::ErrorCode::kBadInput);
  } catch (const std::exception& e) {
    strata::cli::clear_progress_line();
    fmt::print(stderr, "strata: internal error: {}\n", e.what());
    return int(strata::ErrorCode::kInternal);
  }
  return 0;
}
