#include "core/memory_hint.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace strata {

void release_resident_pages(const void* data, size_t bytes) {
#ifdef MADV_PAGEOUT
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  // MADV_PAGEOUT never discards data: anonymous pages would go to swap (or stay), file pages are
  // re-read on the next access. Failure (an old kernel) leaves everything as it was.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace strata
