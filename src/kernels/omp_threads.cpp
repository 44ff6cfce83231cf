#include "kernels/omp_threads.h"

#include <omp.h>

namespace strata::kernels {

OmpThreads::OmpThreads(int threads) : saved_(omp_get_max_threads()) {
  if (threads != saved_) omp_set_num_threads(threads);
}

OmpThreads::~OmpThreads() {
  if (omp_get_max_threads() != saved_) omp_set_num_threads(saved_);
}

}  // namespace strata::kernels
