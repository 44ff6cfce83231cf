// Fast-run (--fast-run): instead of taking the first implementation that supports a node, build
// every one the families offer (each family that serves and supports the node; for oneDNN, every
// implementation in the primitive's list, in the node's layouts), time each on buffers of the
// node's shapes, and keep the fastest. With more than one thread, each is also built and timed on
// one thread (waking the pool can cost more than splitting a small step gains). A library's
// reference implementation ("onednn:ref:any") is left out when an optimised one exists: one run
// of it can take seconds.
#pragma once

#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace strata::kernels {

struct FastRunOptions {
  // Timing stops after this much time per node once every candidate ran min_rounds times.
  double budget_ms = 15;
  int min_rounds = 3;
  int max_rounds = 25;
};

// One implementation tried for a node and its fastest time.
struct TimedCandidate {
  std::string family;
  int implementation = 0;
  int threads = 1;
  std::string kernel;
  double best_ms = 0;
};

// The fastest candidate (Choice::reason names every candidate's time), or, when no family
// supports the node, no kernel and the families' refusals as choose_kernel() gives them.
// Candidates are timed in rounds that alternate between them (the host drifts in phases of
// seconds) on zero-filled buffers (constant inputs read as given); each keeps its fastest run.
// `timed` receives every candidate, fastest first.
Choice choose_fastest(const NodeRequest& request, const FastRunOptions& options = {},
                      std::vector<TimedCandidate>* timed = nullptr);

// Builds one implementation named earlier (from an algo cache): the family called `family` with
// NodeRequest::implementation = `implementation`, for request.threads threads. No kernel when that
// family is unknown, does not support the node now or has no such implementation; Choice::reason
// then says which.
Choice prepare_implementation(const NodeRequest& request, const std::string& family,
                              int implementation);

// Sets OpenMP's thread count (the ICV: no system call) for its lifetime, and restores the count
// it found. Kernels are built for, and must run on, the count current when they are prepared.
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
