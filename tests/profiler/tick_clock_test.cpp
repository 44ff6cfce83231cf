// The profiler's cheap clock agrees with steady_clock, whichever counter it reads.
#include "profiler/tick_clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace strata::profiler {
namespace {

TEST(TickClock, SpansAgreeWithTheSteadyClock) {
  ticks_are_tsc();  // the first use calibrates (about 5 ms); keep that out of the spans
  const int64_t ns0 = now_ns(), t0 = ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const int64_t t1 = ticks(), ns1 = now_ns();
  const double steady_ms = double(ns1 - ns0) * 1e-6;
  // The tick span lies within the steady span (read inside it), up to the rate's precision.
  EXPECT_LE(tick_span_ms(t0, t1), steady_ms * 1.001);
  EXPECT_GE(tick_span_ms(t0, t1), 29.0);
  EXPECT_LE(std::abs(double(ticks_to_ns(t0) - ns0)), 1e6) << "tick readings convert to now_ns()";
}

TEST(TickClock, NeverGoesBackwards) {
  int64_t previous = ticks();
  for (int i = 0; i < 100000; ++i) {
    const int64_t t = ticks();
    ASSERT_GE(t, previous);
    previous = t;
  }
}

}  // namespace
}  // namespace strata::profiler
