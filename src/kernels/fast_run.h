// Fast-run (--fast-run): instead of taking the first implementation that supports a node, build
// every one the families offer (each family that serves and supports the node; for oneDNN, every
// implementation in the primitive's list, in the node's layouts), time each on buffers of the
// node's shapes, and keep the fastest. With more than one thread, each is also built and timed on
// one thread (waking the pool can cost more than splitting a small step gains). The op's own
// reference kernel competes too where choosing it changes nothing around the step (its inputs
// arrive plain, its outputs must be plain) and every input it reads while running is floating
// point (zeros are then valid data for any op: no integer division by zero). A library's
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
inline constexpr const char* kReferenceFamily = "reference";  // TimedCandidate::family

struct TimedCandidate {
  std::string family;  // a kernel family's name, or kReferenceFamily
  int implementation = 0;
  int threads = 1;
  std::string kernel;
  double best_ms = 0;
};

// The fastest candidate (Choice::reason names every candidate's time; no kernel and
// Choice::reference_won when the reference kernel won), or, when no family supports the node, no
// kernel and the families' refusals as choose_kernel() gives them.
// Candidates are timed in rounds that alternate between them (the host drifts in phases of
// seconds) on zero-filled buffers (constant inputs read as given); each keeps its fastest run.
// Another candidate replaces the default (the implementation chosen without fast-run) only when
// it is at least 3% faster. `timed` receives every candidate, the chosen one first, then by time.
Choice choose_fastest(const NodeRequest& request, const FastRunOptions& options = {},
                      std::vector<TimedCandidate>* timed = nullptr);

// Builds one implementation named earlier (from an algo cache): the family called `family` with
// NodeRequest::implementation = `implementation`, for request.threads threads. No kernel when that
// family is unknown, does not support the node now or has no such implementation; Choice::reason
// then says which.
Choice prepare_implementation(const NodeRequest& request, const std::string& family,
                              int implementation);

}  // namespace strata::kernels
