// The progress line: drawn over itself on a terminal, throttled, erased; silent when disabled.
#include "report/progress.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>

namespace strata::report {
namespace {

struct Recorder {
  std::vector<std::string> writes;
  ProgressLine::Writer writer() {
    return [this](const std::string& s) { writes.push_back(s); };
  }
};

TEST(ProgressLine, DisabledWritesNothingAndGivesNoCallback) {
  Recorder r;
  {
    ProgressLine line(false, 80, r.writer());
    line.update("iterations", 1, 10);
    line.clear();
    EXPECT_EQ(line.callback(), nullptr);
  }
  EXPECT_TRUE(r.writes.empty());
}

TEST(ProgressLine, DrawsOverItselfAndErasesWhenCleared) {
  Recorder r;
  ProgressLine line(true, 80, r.writer());
  line.update("iterations", 3, 20);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].rfind("\rstrata: iterations 3/20 (15%)  0.0 s", 0), 0u) << r.writes[0];
  EXPECT_EQ(r.writes[0].substr(r.writes[0].size() - 3), "\033[K");
  EXPECT_EQ(r.writes[0].find('\n'), std::string::npos);
  line.clear();
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[1], "\r\033[K");
  line.clear();  // nothing shown: nothing to erase
  EXPECT_EQ(r.writes.size(), 2u);
}

TEST(ProgressLine, ThrottlesRedrawsWithinAPhaseButShowsANewPhaseAtOnce) {
  Recorder r;
  ProgressLine line(true, 80, r.writer());
  for (int i = 0; i < 1000; ++i) line.update("iterations", i, 1000);
  EXPECT_EQ(r.writes.size(), 1u);  // a thousand updates in well under 100 ms
  line.update("isolation", 1, 5);
  EXPECT_EQ(r.writes.size(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 / ProgressLine::kMaxRedrawsPerSecond));
  line.update("isolation", 2, 5);
  EXPECT_EQ(r.writes.size(), 3u);
}

TEST(ProgressLine, NeverReachesTheLastColumn) {
  Recorder r;
  ProgressLine line(true, 20, r.writer());
  line.update("a-very-long-phase-name", 1, 2);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0], "\rstrata: a-very-long\033[K");  // 19 characters
}

TEST(ProgressLine, HideKeepsThePhaseAndRedrawsAtOnce) {
  Recorder r;
  ProgressLine line(true, 80, r.writer());
  line.update("iterations", 1, 20);
  line.hide();  // a warning goes above
  ASSERT_EQ(r.writes.size(), 2u);
  EXPECT_EQ(r.writes[1], "\r\033[K");
  line.update("iterations", 2, 20);  // within the throttle, yet drawn: nothing is shown
  ASSERT_EQ(r.writes.size(), 3u);
  EXPECT_EQ(r.writes[2].rfind("\rstrata: iterations 2/20", 0), 0u) << r.writes[2];
}

TEST(ProgressTicker, RedrawsWithTheElapsedTimeUntilDestroyed) {
  std::mutex mutex;
  std::vector<std::string> writes;
  ProgressLine line(true, 80, [&](const std::string& s) {
    const std::lock_guard<std::mutex> lock(mutex);
    writes.push_back(s);
  });
  {
    const ProgressTicker ticker(line, "load");
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
  }
  const std::lock_guard<std::mutex> lock(mutex);
  const size_t drawn = writes.size();
  ASSERT_GE(drawn, 3u);  // the first draw and redraws every 100 ms
  EXPECT_EQ(writes[0].rfind("\rstrata: load  0.0 s", 0), 0u) << writes[0];
  EXPECT_NE(writes.back().find("strata: load  "), std::string::npos) << writes.back();
  EXPECT_NE(writes.back(), writes[0]);  // the elapsed time moved on
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  EXPECT_EQ(writes.size(), drawn);  // the thread is gone
}

TEST(ProgressTicker, DisabledLineStartsNoThreadAndWritesNothing) {
  Recorder r;
  ProgressLine line(false, 80, r.writer());
  { const ProgressTicker ticker(line, "load"); }
  EXPECT_TRUE(r.writes.empty());
}

TEST(ProgressLine, TextShowsCountPercentageAndElapsed) {
  EXPECT_EQ(ProgressLine::text("fast-run", 5, 40, 1.25), "strata: fast-run 5/40 (12%)  1.2 s");
  EXPECT_EQ(ProgressLine::text("iterations (10 s)", 1234, 0, 3.0),
            "strata: iterations (10 s) 1234  3.0 s");
  EXPECT_EQ(ProgressLine::text("load", 0, 0, 0.5), "strata: load  0.5 s");
}

}  // namespace
}  // namespace strata::report
