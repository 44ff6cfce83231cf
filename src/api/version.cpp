#include "strata/strata.h"

namespace strata {
const char* version() {
  return STRATA_VERSION;
}
}  // namespace strata
