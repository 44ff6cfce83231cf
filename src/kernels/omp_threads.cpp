#include "kernels/omp_threads.h"

#include <omp.h>
#include <strings.h>

#include <cstdlib>
#include <cstring>

namespace strata::kernels {

OmpThreads::OmpThreads(int threads) : saved_(omp_get_max_threads()) {
  if (threads != saved_) omp_set_num_threads(threads);
}

OmpThreads::~OmpThreads() {
  if (omp_get_max_threads() != saved_) omp_set_num_threads(saved_);
}

bool idle_workers_sleep() {
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  if (spin && std::strcmp(spin, "0") == 0) return true;
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy && strcasecmp(policy, "passive") == 0;
}

}  // namespace strata::kernels
