// Never silently slow: steps that run on a reference implementation (strata's own reference
// kernel, or one of oneDNN's "ref" implementations) and take a noticeable share of an inference
// are named in a warning, with the kernel and why no fast kernel took the node.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"
#include "profiler/profile.h"
#include "runtime/session.h"

namespace strata::profiler {

// Share of one inference above which a step on a reference implementation is reported.
inline constexpr double kSlowPathShare = 0.05;

// Whether an implementation name is a reference one: "reference" (the op's own kernel) or a
// oneDNN "ref" implementation ("onednn:ref:any").
bool is_reference_kernel(const std::string& kernel);

// One step's figures, as the warning needs them.
struct StepTime {
  std::string node, op_type, kernel, reason;
  double ms = 0;         // < 0: not timed
  std::string run_note;  // Kernel::run_note: a data-dependent slower way taken
};

// A warning per step on a reference implementation taking over kSlowPathShare of `total_ms`,
// slowest first, then one per op type and kernel whose smaller such steps take over it together;
// none for steps on reference kernels by request (--reference-kernels). Then one
// for the steps whose kernels took a slower way on this input (run_note), with their share of
// `total_ms` when timed, naming the slowest.
std::vector<std::string> slow_path_warnings(const std::vector<StepTime>& steps, double total_ms);

// From a profile: each node's median against the whole-run median.
std::vector<std::string> slow_path_warnings(const Profile& profile);

// Inferences that confirm a candidate slow path found in one (`strata run`).
inline constexpr int kSlowPathConfirmRuns = 2;

// For `strata run`, which times whole inferences only: when some step runs on a reference
// implementation, times each step through one more inference (its outputs are the same), and
// through kSlowPathConfirmRuns more when that one finds a slow path; each step's fastest time
// against the fastest inference, so that a step preempted once is not reported. No extra run
// when every step has a fast kernel. The data-dependent slower ways of the runs so far are
// reported untimed.
std::vector<std::string> slow_path_warnings(runtime::Session& session,
                                            const std::vector<const Tensor*>& inputs);

}  // namespace strata::profiler
