// What callers outside src/kernels/onednn/ ask of the oneDNN library (its version for the record
// in profiles, its primitive cache for fast-run), kept apart from onednn.h so that they need not
// see oneDNN's headers.
#pragma once

#include <string>

namespace strata::kernels::onednn {

std::string library_version();  // "2.6.3" (major.minor.patch of the loaded libdnnl)

// Turns oneDNN's primitive cache off while it lives, and back on after. Fast-run needs that:
// oneDNN's list of implementations looks the cache up at each position first, so a primitive
// built earlier from position k comes back at position k whatever the list holds there, and the
// list stops being the list.
class PrimitiveCachePause {
 public:
  PrimitiveCachePause();
  ~PrimitiveCachePause();
  PrimitiveCachePause(const PrimitiveCachePause&) = delete;
  PrimitiveCachePause& operator=(const PrimitiveCachePause&) = delete;

 private:
  int capacity_;
};

}  // namespace strata::kernels::onednn
