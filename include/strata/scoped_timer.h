// Timing sections of your own code into a strata profile.
//
//   {
//     strata::ScopedTimer t("preprocess");
//     ...                                      // timed as "preprocess"
//     { strata::ScopedTimer u("resize"); ... } // timed as "preprocess/resize"
//   }
//
// Each closed scope becomes a row (op type "scope") of the active profiler collector
// (profiler::Collector::activate), beside the model's nodes in the tables and in the trace: calls,
// times and heap allocations. Names nest per thread, joined with '/'. With no collector active a
// ScopedTimer does nothing but read one atomic pointer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace strata {

namespace profiler {
class Collector;
}

class ScopedTimer {
 public:
  explicit ScopedTimer(std::string_view name);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  profiler::Collector* collector_;  // nullptr: not recording
  size_t parent_length_ = 0;        // length of this thread's scope path before this scope
  int64_t start_ticks_ = 0;
  int64_t start_allocations_ = 0, start_bytes_ = 0;
};

}  // namespace strata
