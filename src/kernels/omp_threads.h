// OpenMP's thread count for a scope: kernels are built for, and must run on, the count current
// when they are prepared (oneDNN sizes a primitive's parallel work then).
#pragma once

#include <cstdint>

namespace strata::kernels {

// Sets OpenMP's thread count (the ICV: no system call) for its lifetime, and restores the count
// it found, also when the scope is left by an exception.
class OmpThreads {
 public:
  explicit OmpThreads(int threads);
  ~OmpThreads();
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int saved_;
};

// True when OpenMP's idle workers sleep at once (OMP_WAIT_POLICY=passive, or GOMP_SPINCOUNT=0):
// then every parallel region pays for waking them (tens of microseconds on a virtual machine).
bool idle_workers_sleep();

// Threads, up to `threads`, worth sharing a pass of `values` light per-value work among (a copy,
// a permutation, a SiLU: a nanosecond or less a value): one more for each 2^14 values while idle
// workers spin, 2^19 when they sleep.
int pass_threads(int64_t values, int threads);

}  // namespace strata::kernels
