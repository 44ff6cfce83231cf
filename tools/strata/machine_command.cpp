// `strata machine`: this machine's peak FP32 FLOP/s, int8 OP/s and memory bandwidth per thread
// count (cached).
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "strata/machine.h"
#include "strata/progress.h"
#include "strata/table.h"
#include "strata/views.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct MachineCommandOptions {
  int threads = 0;  // 0: every count up to the logical CPUs
  bool refresh = false;
  std::string cache_path;
  ViewOptions view;  // --columns, --wide
};

std::string one_decimal(double value) {
  return fmt::format("{:.1f}", value);
}

int execute_machine(const MachineCommandOptions& cmd) {
  MachineOptions cache;
  cache.cache_path = cmd.cache_path.empty() ? default_machine_cache_path() : cmd.cache_path;
  cache.refresh = cmd.refresh;
  cache.warn = print_warnings();
  const int max_threads = cmd.threads > 0 ? cmd.threads : logical_cpus();
  fmt::print("{:<12}{}, {} logical CPUs\n", "cpu", cpu_model(), logical_cpus());
  fmt::print("{:<12}{}\n", "cache", cache.cache_path);
  // Narrow terminals keep the peaks and drop the derived balance and the ISAs first.
  const std::vector<Column> columns = {{"threads"},
                                       {"GFLOP/s FP32"},
                                       {"GOP/s int8", Align::kRight, 1},
                                       {"GB/s triad"},
                                       {"balance FLOP/B", Align::kRight, 3},
                                       {"isa", Align::kLeft, 2},
                                       {"source", Align::kLeft, 1}};
  check_column_names(cmd.view.columns, {columns});
  Table table(columns);
  const ProgressFn line = terminal_progress();
  for (int t = 1; t <= max_threads; ++t) {
    // One line over every thread count: measurement k of thread count t is step 3(t-1)+k.
    if (line)
      cache.progress = [&line, t, max_threads](const char* phase, int64_t done, int64_t) {
        line(phase, 3 * (t - 1) + done, 3 * int64_t(max_threads));
      };
    const MachinePeaks m = machine_peaks(t, cache);
    table.add_row({fmt::format("{}", t), one_decimal(m.gflops), one_decimal(m.int8_gops),
                   one_decimal(m.gbps), one_decimal(m.gflops / m.gbps),
                   (m.isa.empty() ? "-" : m.isa) + ", " + (m.int8_isa.empty() ? "-" : m.int8_isa),
                   m.measured ? "measured" : "cache"});
  }
  clear_terminal_progress();
  fmt::print("{}", table.render(fit_options(cmd.view)));
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
  add_fit_options(sub, cmd->view);
  return {sub, [cmd] { return execute_machine(*cmd); }};
}

}  // namespace strata::cli
