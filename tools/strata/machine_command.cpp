// `strata machine`: this machine's peak FP32 FLOP/s, int8 OP/s and memory bandwidth per thread
// count (cached).
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "strata/machine.h"
#include "strata/table.h"

namespace strata::cli {

namespace {

struct MachineCommandOptions {
  int threads = 0;  // 0: every count up to the logical CPUs
  bool refresh = false;
  std::string cache_path;
};

int execute_machine(const MachineCommandOptions& cmd) {
  strata::MachineOptions cache;
  cache.cache_path = cmd.cache_path.empty() ? default_machine_cache_path() : cmd.cache_path;
  cache.refresh = cmd.refresh;
  cache.warn = print_warnings();
  const int max_threads = cmd.threads > 0 ? cmd.threads : logical_cpus();
  fmt::print("{:<12}{}, {} logical CPUs\n", "cpu", cpu_model(), logical_cpus());
  fmt::print("{:<12}{}\n", "cache", cache.cache_path);
  Table table({{"threads"},
               {"GFLOP/s FP32"},
               {"GOP/s int8"},
               {"GB/s triad"},
               {"balance FLOP/B"},
               {"isa", Align::kLeft},
               {"source", Align::kLeft}});
  for (int t = 1; t <= max_threads; ++t) {
    const MachinePeaks m = machine_peaks(t, cache);
    table.add_row({fmt::format("{}", t), fmt::format("{:.1f}", m.gflops),
                   fmt::format("{:.1f}", m.int8_gops), fmt::format("{:.1f}", m.gbps),
                   fmt::format("{:.1f}", m.gflops / m.gbps),
                   (m.isa.empty() ? "-" : m.isa) + ", " + (m.int8_isa.empty() ? "-" : m.int8_isa),
                   m.measured ? "measured" : "cache"});
  }
  fmt::print("{}", table.render());
  return 0;
}

}  // namespace

Command add_machine_command(CLI::App& app) {
  auto cmd = std::make_shared<MachineCommandOptions>();
  CLI::App* sub = app.add_subcommand(
      "machine",
      "measure this machine's peak FP32 FLOP/s, int8 OP/s and memory bandwidth (cached)");
  sub->add_option("--threads", cmd->threads, "measure 1 to N threads [default: the logical CPUs]")
      ->check(CLI::Range(1, 4096));
  sub->add_flag("--refresh", cmd->refresh, "measure again even when the cache has the figures");
  sub->add_option("--cache", cmd->cache_path,
                  "cache file [default: $STRATA_MACHINE_CACHE, else ~/.cache/strata/machine.json]");
  return {sub, [cmd] { return execute_machine(*cmd); }};
}

}  // namespace strata::cli
