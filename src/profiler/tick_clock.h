// The profiler's clock. Its hooks read the time twice per node, so a read must be cheap. On x86,
// when the kernel itself keeps time with the CPU's time-stamp counter (clocksource "tsc": a counter
// the kernel found to tick at a constant rate, in step on every core), ticks() reads that counter
// directly: about 10 ns, where clock_gettime took 25 to 100 ns on the machine strata was measured
// on. Elsewhere ticks() is steady_clock nanoseconds. Ticks convert to steady-clock nanoseconds at a
// rate measured once per process against steady_clock.
#pragma once

#include <cstdint>

namespace strata::profiler {

// Nanoseconds on the monotonic clock (std::chrono::steady_clock).
int64_t now_ns();

// The cheap timestamp; only differences and ticks_to_ns() are meaningful.
int64_t ticks();
// True when ticks() reads the time-stamp counter.
bool ticks_are_tsc();

// A tick reading as steady-clock nanoseconds (now_ns()'s clock).
int64_t ticks_to_ns(int64_t ticks);
// A difference of tick readings as milliseconds.
double tick_span_ms(int64_t from_ticks, int64_t to_ticks);

}  // namespace strata::profiler
