#include "profiler/tick_clock.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace strata::profiler {

namespace {

constexpr int64_t kCalibrationNs = 5'000'000;  // long enough for a rate to 1e-5 and better
constexpr int kReadingAttempts = 16;

// How ticks relate to steady-clock nanoseconds: ns = origin_ns + (ticks - origin_ticks) × rate.
struct TickRate {
  bool tsc = false;
  double ns_per_tick = 1;
  int64_t origin_ticks = 0, origin_ns = 0;
};

#if defined(__x86_64__)
bool kernel_keeps_time_with_tsc() {
  std::ifstream in("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string source;
  return in >> source && source == "tsc";
}

// A (nanoseconds, ticks) pair read as nearly at once as possible: of several attempts, the one
// whose two counter reads bracket the clock read most tightly (a thread preempted in between
// would otherwise skew the rate).
void paired_reading(int64_t& ns, int64_t& tick) {
  int64_t best_gap = INT64_MAX;
  for (int i = 0; i < kReadingAttempts; ++i) {
    const int64_t before = int64_t(__rdtsc());
    const int64_t clock = now_ns();
    const int64_t after = int64_t(__rdtsc());
    if (after - before < best_gap) {
      best_gap = after - before;
      ns = clock;
      tick = before + (after - before) / 2;
    }
  }
}
#endif

TickRate measure_rate() {
  TickRate r;
#if defined(__x86_64__)
  if (!kernel_keeps_time_with_tsc()) return r;
  int64_t ns0 = 0, t0 = 0, ns1 = 0, t1 = 0;
  paired_reading(ns0, t0);
  while (now_ns() - ns0 < kCalibrationNs) {
  }
  paired_reading(ns1, t1);
  if (t1 <= t0 || ns1 <= ns0) return r;  // a counter that does not move: do not trust it
  r.tsc = true;
  r.ns_per_tick = double(ns1 - ns0) / double(t1 - t0);
  r.origin_ticks = t0;
  r.origin_ns = ns0;
#endif
  return r;
}

// Measured on first use (about 5 ms, once per process).
const TickRate& rate() {
  static const TickRate r = measure_rate();
  return r;
}

}  // namespace

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ticks() {
#if defined(__x86_64__)
  if (rate().tsc) return int64_t(__rdtsc());
#endif
  return now_ns();
}

bool ticks_are_tsc() {
  return rate().tsc;
}

int64_t ticks_to_ns(int64_t t) {
  const TickRate& r = rate();
  if (!r.tsc) return t;
  return r.origin_ns + std::llround(double(t - r.origin_ticks) * r.ns_per_tick);
}

double tick_span_ms(int64_t from_ticks, int64_t to_ticks) {
  return double(to_ticks - from_ticks) * rate().ns_per_tick * 1e-6;
}

}  // namespace strata::profiler
