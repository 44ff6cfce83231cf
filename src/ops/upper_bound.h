// Sizes that depend on values (NonZero's count, NonMaxSuppression's): a shape rule gives a fresh
// symbolic dim for them, and the engine resolves it while running. Static analysis asks for upper
// bounds instead (an UpperBoundScope around the shape rule, on the calling thread): then such a
// size is the largest the inputs' shapes allow, and how it was bounded is kept for the analysis
// note.
#pragma once

#include <string>
#include <string_view>

#include "core/shape.h"

namespace strata::ops {

// A data-dependent size: Dim::unknown(), or within an UpperBoundScope `bound` (when static), its
// `how` ("output count at most max_output_boxes_per_class × classes × batch") noted with it.
Dim data_dependent(Dim bound, std::string_view how);

// Shape rules run on this thread while it lives give upper bounds (not nested).
class UpperBoundScope {
 public:
  UpperBoundScope();
  ~UpperBoundScope();
  UpperBoundScope(const UpperBoundScope&) = delete;
  UpperBoundScope& operator=(const UpperBoundScope&) = delete;

  // The bounds taken since the last take_note(), "; "-joined ("" when none); clears them.
  std::string take_note();
};

}  // namespace strata::ops
