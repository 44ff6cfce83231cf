#include "report/progress.h"

#include <fmt/format.h>

#include <cstdio>

#include "report/terminal.h"

namespace strata::report {

namespace {
constexpr const char* kReturnAndErase = "\r\033[K";  // to the line's start, erase to its end

// The first `width` code points of UTF-8 `s`.
std::string cut(const std::string& s, size_t width) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && count++ == width)
      return s.substr(0, i);
  }
  return s;
}
}  // namespace

ProgressLine::ProgressLine(bool enabled, size_t width, Writer write)
    : enabled_(enabled), width_(width), write_(std::move(write)) {}

std::string ProgressLine::text(const std::string& phase, int64_t done, int64_t total,
                               double elapsed_s) {
  std::string count;
  if (total > 0)
    count = fmt::format(" {}/{} ({:.0f}%)", done, total, 100.0 * double(done) / double(total));
  else if (done > 0)
    count = fmt::format(" {}", done);
  return fmt::format("strata: {}{}  {:.1f} s", phase, count, elapsed_s);
}

void ProgressLine::update(const char* phase, int64_t done, int64_t total) {
  if (!enabled_) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  const Clock::time_point now = Clock::now();
  const bool new_phase = phase_ != phase;
  if (new_phase) {
    phase_ = phase;
    phase_start_ = now;
  } else if (shown_ && now - last_draw_ < std::chrono::milliseconds(1000 / kMaxRedrawsPerSecond)) {
    return;
  }
  last_draw_ = now;
  std::string line =
      text(phase_, done, total, std::chrono::duration<double>(now - phase_start_).count());
  if (width_ > 1) line = cut(line, width_ - 1);  // never reach the last column: no wrap
  write_("\r" + line + "\033[K");
  shown_ = true;
}

void ProgressLine::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  phase_.clear();
  if (!shown_) return;
  write_(kReturnAndErase);
  shown_ = false;
}

void ProgressLine::hide() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!shown_) return;
  write_(kReturnAndErase);
  shown_ = false;
}

ProgressFn ProgressLine::callback() {
  if (!enabled_) return nullptr;
  return [this](const char* phase, int64_t done, int64_t total) { update(phase, done, total); };
}

ProgressTicker::ProgressTicker(ProgressLine& line, const char* phase)
    : ProgressTicker(line.callback(), phase) {}

ProgressTicker::ProgressTicker(ProgressFn progress, const char* phase)
    : progress_(std::move(progress)), phase_(phase) {
  if (!progress_) return;
  progress_(phase, 0, 0);
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock,
                           std::chrono::milliseconds(1000 / ProgressLine::kMaxRedrawsPerSecond),
                           [this] { return stop_; }))
      progress_(phase_.c_str(), 0, 0);
  });
}

ProgressTicker::~ProgressTicker() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

ProgressLine& stderr_progress() {
  static ProgressLine line(is_terminal(2), terminal_width(2), [](const std::string& s) {
    std::fputs(s.c_str(), stderr);
    std::fflush(stderr);
  });
  return line;
}

}  // namespace strata::report

namespace strata {

ProgressFn terminal_progress() {
  return report::stderr_progress().callback();
}

void clear_terminal_progress() {
  report::stderr_progress().clear();
}

void print_warning(const std::string& text) {
  report::stderr_progress().hide();  // the warning goes above the progress line
  fmt::print(stderr, "{} {}\n", report::warning_style("strata: warning:", report::use_colour(2)),
             text);
}

}  // namespace strata
