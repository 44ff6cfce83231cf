// How the session picks a node's fast kernel: from the algo cache when it holds a choice for the
// node's configuration that can still be built, by fast-run's timings when asked (stored in the
// cache; on `pool_threads` and on one thread), else the first family that supports the node (on
// request.threads, the session's static choice). Choice::threads says which the kernel was built
// for.
#pragma once

#include "kernels/kernel.h"
#include "runtime/algo_cache.h"

namespace strata::runtime {

kernels::Choice choose_step_kernel(const kernels::NodeRequest& request, bool fast_run,
                                   AlgoCache* cache, int pool_threads);

}  // namespace strata::runtime
