#include "runtime/kernel_choice.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/fast_run.h"

namespace strata::runtime {

kernels::Choice choose_step_kernel(const kernels::NodeRequest& r, bool fast_run, AlgoCache* cache) {
  const std::string key = cache ? algo_key(r) : std::string();
  if (const AlgoChoice* cached = cache ? cache->find(key) : nullptr) {
    kernels::Choice c = kernels::prepare_implementation(r, cached->family, cached->implementation);
    if (c.kernel && c.kernel->name() == cached->kernel) {
      c.reason = fmt::format("algo cache {}: {}", cache->path(), cached->reason);
      return c;
    }
    cache->warn(fmt::format("{}: the algo cache chose {} for {}, but {}; {}", cache->path(),
                            cached->kernel, r.graph.describe(r.node),
                            c.kernel ? "that implementation is now " + c.kernel->name() : c.reason,
                            fast_run ? "timing again" : "using the default kernel"));
    cache->forget(key);
  }
  if (!fast_run) return kernels::choose_kernel(r);
  std::vector<kernels::TimedCandidate> timed;
  kernels::Choice c = kernels::choose_fastest(r, {}, &timed);
  if (cache && c.kernel)
    cache->store(
        key, {c.family->name, c.implementation, c.kernel->name(), timed.front().best_ms, c.reason});
  return c;
}

}  // namespace strata::runtime
