// strata::human_bytes (include/strata/table.h): the report layer's own.
#include "report/units.h"

#include "strata/table.h"

namespace strata {

std::string human_bytes(double bytes) {
  return report::human_bytes(bytes);
}

}  // namespace strata
