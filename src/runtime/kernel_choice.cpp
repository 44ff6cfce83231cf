#include "runtime/kernel_choice.h"

#include <fmt/format.h>

#include <cmath>

#include "kernels/fast_run.h"

namespace strata::runtime {

kernels::Choice choose_step_kernel(const kernels::NodeRequest& r, bool fast_run, AlgoCache* cache,
                                   int pool_threads) {
  kernels::NodeRequest pooled = r;  // fast-run's request and the cache's key
  pooled.threads = pool_threads;
  const std::string key = cache ? algo_key(pooled) : std::string();
  if (const AlgoChoice* cached = cache ? cache->find(key) : nullptr) {
    if (cached->family == kernels::kReferenceFamily) {
      kernels::Choice c;
      c.reference_won = true;
      c.reason = fmt::format("algo cache {}: {}", cache->path(), cached->reason);
      return c;
    }
    kernels::NodeRequest build = r;
    build.threads = cached->threads;
    kernels::Choice c =
        kernels::prepare_implementation(build, cached->family, cached->implementation);
    if (c.kernel && c.kernel->name() == cached->kernel) {
      c.threads_timed = true;
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
  kernels::Choice c = kernels::choose_fastest(pooled, {}, &timed);
  if (cache && !timed.empty()) {
    const kernels::TimedCandidate& best = timed.front();
    const double ms = std::isfinite(best.best_ms) ? best.best_ms : 0.0;
    cache->store(key, {best.family, best.implementation, best.threads, best.kernel, ms, c.reason});
  }
  return c;
}

}  // namespace strata::runtime
