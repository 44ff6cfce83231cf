// Heap allocation counting: strata replaces the global operator new (once, in alloc_counter.cpp) so
// the profiler can attribute allocations to the node that made them. Each thread counts into its
// own cache line; a read sums every thread's counter, so allocations made by worker threads while
// a node runs are attributed to it too.
#pragma once

#include <cstdint>

namespace strata::profiler {

struct HeapCount {
  int64_t allocations = 0;  // calls to operator new (every form)
  int64_t bytes = 0;        // bytes requested by those calls
};

// Allocations made so far by all threads of the process (monotonic; take differences).
HeapCount heap_count();

// False when the program's operator new is not strata's (under AddressSanitizer, which owns it):
// then heap_count() stays zero and allocation figures are unknown, not zero.
bool heap_counting_enabled();

}  // namespace strata::profiler
