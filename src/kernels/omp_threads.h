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

}  // namespace strata::kernels
