// `strata machine`: this machine's peak FP32 FLOP/s, int8 OP/s and memory bandwidth per thread
// count (cached).
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "command_output.h"
#include "strata_internal.h"
#include "view_cli.h"

namespace strata::cli {

namespace {

struct MachineOptions {
  int threads = 0;  // 0: every count up to the logical CPUs
  bool refresh = false;
  std::string cache_path;
  report::ViewOptions view;  // --columns, --wide
};

int execute_machine(const MachineOptions& cmd) {
  profiler::MachineCacheOptions cache;
  cache.path = cmd.cache_path.empty() ? profiler::default_machine_cache_path() : cmd.cache_path;
  cache.refresh = cmd.refresh;
  cache.warn = print_warnings();
  const int max_threads = cmd.threads > 0 ? cmd.threads : profiler::logical_cpus();
  fmt::print("{:<12}{}, {} logical CPUs\n", "cpu", profiler::cpu_model(), profiler::logical_cpus());
  fmt::print("{:<12}{}\n", "cache", cache.path);
  // Narrow terminals keep the peaks and drop the derived balance and the ISAs first.
  const std::vector<report::Column> columns = {{"threads"},
                                               {"GFLOP/s FP32"},
                                               {"GOP/s int8", report::Align::kRight, 1},
                                               {"GB/s triad"},
                                               {"balance FLOP/B", report::Align::kRight, 3},
                                               {"isa", report::Align::kLeft, 2},
                                               {"source", report::Align::kLeft, 1}};
  report::check_column_names(cmd.view.columns, {columns});
  report::Table table(columns);
  report::ProgressLine& progress = report::stderr_progress();
  for (int t = 1; t <= max_threads; ++t) {
    // One line over every thread count: measurement k of thread count t is step 3(t-1)+k.
    if (progress.enabled())
      cache.progress = [&progress, t, max_threads](const char* phase, int64_t done, int64_t) {
        progress.update(phase, 3 * (t - 1) + done, 3 * int64_t(max_threads));
      };
    const profiler::MachineInfo m = profiler::machine_peaks(t, cache);
    table.add_row({fmt::format("{}", t), report::fixed(m.peak_gflops, 1),
                   report::fixed(m.peak_int8_gops, 1), report::fixed(m.peak_gbps, 1),
                   report::fixed(m.peak_gflops / m.peak_gbps, 1),
                   (m.isa.empty() ? "-" : m.isa) + ", " + (m.int8_isa.empty() ? "-" : m.int8_isa),
                   m.peaks_source == "measured" ? "measured" : "cache"});
  }
  progress.clear();
  fmt::print("{}", table.render(report::fit_options(cmd.view)));
  return 0;
}

}  // namespace

Command add_machine_command(CLI::App& app) {
  auto cmd = std::make_shared<MachineOptions>();
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
