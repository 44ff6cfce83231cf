// OpenMP's thread count for a scope: kernels are built for, and must run on, the count current
// when they are prepared (oneDNN sizes a primitive's parallel work then).
#pragma once

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

}  // namespace strata::kernels
