// A one-line progress indicator for long work ("strata: iterations 12/20 (60%)  1.4 s"), drawn on
// a terminal over itself with a carriage return and erased when done. Disabled (every call a
// no-op) when the stream is not a terminal, so files and pipes get no \r and no escape codes.
// Redraws are throttled so that drawing costs nothing measurable; callers update between units of
// work, never inside a timed region.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/progress.h"

namespace strata::report {

class ProgressLine {
 public:
  using Clock = std::chrono::steady_clock;
  using Writer = std::function<void(const std::string&)>;
  // At most this many redraws per second, besides the first one of each phase.
  static constexpr int kMaxRedrawsPerSecond = 10;

  // Draws through `write` when `enabled`, cutting lines to `width` - 1 characters (0: no cut).
  ProgressLine(bool enabled, size_t width, Writer write);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` units of `phase` are finished (total 0: unknown). A new phase draws at once
  // and restarts the elapsed time; otherwise the line is redrawn at most kMaxRedrawsPerSecond.
  void update(const char* phase, int64_t done, int64_t total);
  // Erases the line when the work is done; the next update starts a new phase.
  void clear();
  // Erases the line for other output (a warning) in the middle of the work: the next update of
  // the same phase redraws at once and keeps counting its elapsed time.
  void hide();
  // update() as a callback for the library (SessionOptions::progress, ProfileRunOptions::progress).
  ProgressFn callback();
  bool enabled() const { return enabled_; }

  // The text of the line, without control characters: "strata: iterations 12/20 (60%)  1.4 s".
  static std::string text(const std::string& phase, int64_t done, int64_t total, double elapsed_s);

 private:
  bool enabled_;
  size_t width_;
  Writer write_;
  std::mutex mutex_;  // a ProgressTicker redraws from its own thread
  std::string phase_;
  Clock::time_point phase_start_{}, last_draw_{};
  bool shown_ = false;
};

// For work that cannot say how far it has come (loading a model): shows `phase` with its elapsed
// time, redrawn from a thread of its own until destroyed. Only around untimed work: the thread
// wakes several times a second. Does nothing when the line is disabled (or `progress` is empty).
class ProgressTicker {
 public:
  ProgressTicker(ProgressLine& line, const char* phase);
  ProgressTicker(ProgressFn progress, const char* phase);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  ProgressFn progress_;
  std::string phase_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

// The progress line of this process, on stderr (enabled only when stderr is a terminal).
ProgressLine& stderr_progress();

}  // namespace strata::report
