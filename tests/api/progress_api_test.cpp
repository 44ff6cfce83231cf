// strata/progress.h: the progress callbacks of analyze and machine_peaks, and print_warning.
#include <gtest/gtest.h>
#include <strata/strata.h>

#include <cstdio>
#include <string>
#include <vector>

#include "testutil/test_files.h"

namespace strata {
namespace {

using test::kExampleModel;

// The phases a ProgressFn was told of, each once, in order.
struct Phases {
  std::vector<std::string> seen;
  ProgressFn fn() {
    return [this](const char* phase, int64_t, int64_t) {
      if (seen.empty() || seen.back() != phase) seen.push_back(phase);
    };
  }
};

TEST(ProgressApi, AnalysisTellsOfLoadThenAnalysis) {
  Phases phases;
  AnalysisOptions options;
  options.progress = phases.fn();
  analyze(kExampleModel, options);
  EXPECT_EQ(phases.seen, (std::vector<std::string>{"load", "analysis"}));
}

TEST(ProgressApi, MachinePeaksTellOfEachMeasurementButNotOfACacheHit) {
  MachineOptions options;
  options.cache_path = testing::TempDir() + "/progress_api_machine.json";
  std::remove(options.cache_path.c_str());
  std::vector<int64_t> steps;
  options.progress = [&steps](const char* phase, int64_t done, int64_t total) {
    EXPECT_STREQ(phase, "machine peaks");
    EXPECT_EQ(total, 3);
    steps.push_back(done);
  };
  const MachinePeaks measured = machine_peaks(1, options);
  EXPECT_TRUE(measured.measured);
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 1, 2, 3}));
  steps.clear();
  const MachinePeaks cached = machine_peaks(1, options);
  EXPECT_FALSE(cached.measured);
  EXPECT_EQ(cached.gflops, measured.gflops);
  EXPECT_TRUE(steps.empty());
  std::remove(options.cache_path.c_str());
}

TEST(ProgressApi, NoProgressLineWhenStderrIsNotATerminal) {
  if (terminal_width(2) != 0) GTEST_SKIP() << "stderr is a terminal";
  EXPECT_FALSE(terminal_progress());
  clear_terminal_progress();  // nothing drawn: nothing written
}

TEST(ProgressApi, WarningsGoToStderrWithTheirLabel) {
  testing::internal::CaptureStderr();
  print_warning("input 'x' contains NaN");
  const std::string printed = testing::internal::GetCapturedStderr();
  // The label is plain off a terminal; on one it is in colour.
  if (!use_colour(2)) {
    EXPECT_EQ(printed, "strata: warning: input 'x' contains NaN\n");
  }
  EXPECT_NE(printed.find("input 'x' contains NaN\n"), std::string::npos);
}

}  // namespace
}  // namespace strata
