// Hints to the operating system about memory strata no longer needs resident.
#pragma once

#include <cstddef>

namespace strata {

// Asks the kernel to reclaim the whole pages inside [data, data + bytes): file-backed pages
// (weights mapped from the model file) leave the resident set and are read again only if touched;
// other pages are kept (no data is ever lost). Used once a weight has been packed into another
// copy. A no-op where the hint is unsupported.
void release_resident_pages(const void* data, size_t bytes);

}  // namespace strata
