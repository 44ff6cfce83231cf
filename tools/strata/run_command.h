#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace strata::cli {

// The options of `strata run`, filled by CLI11.
struct RunCommand {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> shapes;
  std::vector<std::string> dims;
  uint64_t seed = 0;
  int warmup = 1;
  int iterations = 10;
  int threads = 1;
  std::string dump_dir;
  std::string verify_dir;
  std::string test_data_dir;
  std::string json_path;
  std::string max_memory = "16G";
  double rtol = 1e-3;
  double atol = 1e-7;
  bool quiet = false;
};

// Registers `strata run` and its options on the app, writing into `options`.
void add_run_command(CLI::App& app, RunCommand& options);
// Runs it; returns the exit code (0 ok, 1 verification failed). Errors throw strata::Error.
int execute(RunCommand& command);

}  // namespace strata::cli
