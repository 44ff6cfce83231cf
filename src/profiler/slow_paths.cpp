#include "profiler/slow_paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "profiler/stats.h"

namespace strata::profiler {

bool is_reference_kernel(const std::string& kernel) {
  return kernel == "reference" || kernel.find(":ref:") != std::string::npos ||
         kernel.rfind("onednn:ref", 0) == 0;
}

namespace {

// One warning for the steps whose kernels took a slower way on this input, or "".
std::string data_dependent_warning(const std::vector<StepTime>& steps, double total_ms) {
  std::vector<const StepTime*> noted;
  for (const StepTime& s : steps)
    if (!s.run_note.empty()) noted.push_back(&s);
  if (noted.empty()) return "";
  std::stable_sort(noted.begin(), noted.end(),
                   [](const StepTime* a, const StepTime* b) { return a->ms > b->ms; });
  double ms = 0;
  bool timed = total_ms > 0;
  for (const StepTime* s : noted) {
    ms += s->ms;
    timed = timed && s->ms >= 0;
  }
  const StepTime& first = *noted.front();
  return fmt::format("{} step{} took a slower way on this input{}: '{}' ({}): {}{}", noted.size(),
                     noted.size() == 1 ? "" : "s",
                     timed ? fmt::format(" ({:.1f}% of the run)", 100 * ms / total_ms) : "",
                     first.node, first.op_type, first.run_note,
                     noted.size() > 1 ? fmt::format("; and {} more", noted.size() - 1) : "");
}

// How a warning names a step's kernel.
std::string kernel_description(const std::string& kernel) {
  return kernel == "reference" ? "the op's reference kernel"
                               : kernel + " (a reference implementation)";
}

// A warning per step on a reference implementation taking over kSlowPathShare of `total_ms`, and
// one per op type and kernel whose other such steps take over kSlowPathShare together (MaxViT's
// 44 Einsum steps: each under 2% of the run, 80% of it together).
std::vector<std::string> reference_path_warnings(const std::vector<StepTime>& steps,
                                                 double total_ms) {
  std::vector<const StepTime*> slow, small;
  for (const StepTime& s : steps)
    if (total_ms > 0 && is_reference_kernel(s.kernel) &&
        s.reason != runtime::kFastKernelsOffReason)  // asked for: nothing to tell
      (s.ms > kSlowPathShare * total_ms ? slow : small).push_back(&s);
  const auto slower = [](const StepTime* a, const StepTime* b) { return a->ms > b->ms; };
  std::sort(slow.begin(), slow.end(), slower);
  std::stable_sort(small.begin(), small.end(), slower);
  std::vector<std::string> warnings;
  for (const StepTime* s : slow)
    warnings.push_back(
        fmt::format("node '{}' ({}) runs on {} and takes {:.1f}% of the run ({:.3f} ms){}", s->node,
                    s->op_type, kernel_description(s->kernel), 100 * s->ms / total_ms, s->ms,
                    s->reason.empty() ? "" : ": " + s->reason));  // old profiles
  std::vector<bool> told(small.size(), false);
  for (size_t i = 0; i < small.size(); ++i) {
    if (told[i]) continue;
    double ms = 0;
    size_t count = 0;
    for (size_t j = i; j < small.size(); ++j)
      if (!told[j] && small[j]->op_type == small[i]->op_type &&
          small[j]->kernel == small[i]->kernel) {
        ms += small[j]->ms;
        ++count;
      }
    if (count < 2 || ms <= kSlowPathShare * total_ms) continue;
    for (size_t j = i; j < small.size(); ++j)
      told[j] = told[j] ||
                (small[j]->op_type == small[i]->op_type && small[j]->kernel == small[i]->kernel);
    const StepTime& largest = *small[i];
    warnings.push_back(fmt::format(
        "{} {} nodes run on {} and take {:.1f}% of the run together ({:.3f} ms; the largest, '{}', "
        "{:.3f} ms){}",
        count, largest.op_type, kernel_description(largest.kernel), 100 * ms / total_ms, ms,
        largest.node, largest.ms, largest.reason.empty() ? "" : ": " + largest.reason));
  }
  return warnings;
}

}  // namespace

std::vector<std::string> slow_path_warnings(const std::vector<StepTime>& steps, double total_ms) {
  std::vector<std::string> warnings = reference_path_warnings(steps, total_ms);
  if (std::string w = data_dependent_warning(steps, total_ms); !w.empty())
    warnings.push_back(std::move(w));
  return warnings;
}

std::vector<std::string> slow_path_warnings(const Profile& profile) {
  std::vector<StepTime> steps;
  for (const NodeProfile& n : profile.nodes) {
    if (n.op_type == "scope" || n.samples_ms.empty()) continue;
    steps.push_back(
        {n.name, n.op_type, n.kernel, n.kernel_reason, summarize(n.samples_ms).median, n.run_note});
  }
  return slow_path_warnings(steps, summarize(profile.iterations_ms).median);
}

namespace {

// Times each step over the inferences it hears of, keeping each step's fastest time.
class StepClock final : public runtime::RunHooks {
 public:
  explicit StepClock(size_t steps) : ms_(steps, kNotTimed), run_ms_(steps, 0.0) {}
  void before_node(size_t) override { start_ = std::chrono::steady_clock::now(); }
  void after_node(size_t step) override {
    run_ms_[step] +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
  }
  // Ends one inference: each step keeps the least of its times so far.
  void end_run() {
    for (size_t s = 0; s < ms_.size(); ++s) ms_[s] = std::min(ms_[s], run_ms_[s]);
    std::fill(run_ms_.begin(), run_ms_.end(), 0.0);
  }
  const std::vector<double>& ms() const { return ms_; }

 private:
  static constexpr double kNotTimed = 1e300;
  std::vector<double> ms_, run_ms_;  // fastest so far; this inference's (a step may run twice)
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::vector<std::string> slow_path_warnings(runtime::Session& session,
                                            const std::vector<const Tensor*>& inputs) {
  const std::vector<runtime::StepInfo>& info = session.steps();
  if (std::none_of(info.begin(), info.end(),
                   [](const runtime::StepInfo& s) { return is_reference_kernel(s.kernel); })) {
    std::vector<StepTime> untimed;
    for (size_t s = 0; s < info.size(); ++s) {
      const ir::Node& node = session.graph().nodes[info[s].node_index];
      untimed.push_back(
          {node.name, node.op_type, info[s].kernel, info[s].reason, -1, session.run_note(s)});
    }
    return slow_path_warnings(untimed, 0);
  }
  StepClock clock(info.size());
  struct Hooked {  // the hooks go when the runs do, even when one throws
    runtime::Session& session;
    ~Hooked() { session.set_hooks(nullptr); }
  } hooked{session};
  session.set_hooks(&clock);
  double total_ms = 1e300;
  const auto timed_steps = [&](int runs) {
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      session.run(inputs);
      total_ms = std::min(
          total_ms,
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      clock.end_run();
    }
    std::vector<StepTime> steps;
    for (size_t s = 0; s < info.size(); ++s) {
      const ir::Node& node = session.graph().nodes[info[s].node_index];
      steps.push_back({node.name, node.op_type, info[s].kernel, info[s].reason, clock.ms()[s],
                       session.run_note(s)});
    }
    return steps;
  };
  // One inference finds the candidates; on a busy machine another process may have held the CPU
  // during one step, so a warning stands only when two more inferences confirm it (each step's
  // fastest time against the fastest whole run).
  const std::vector<StepTime> first = timed_steps(1);
  if (reference_path_warnings(first, total_ms).empty()) return slow_path_warnings(first, total_ms);
  return slow_path_warnings(timed_steps(kSlowPathConfirmRuns), total_ms);
}

}  // namespace strata::profiler
