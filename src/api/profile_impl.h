// What a strata::Profile holds (include/strata/profile.h).
#pragma once

#include "profiler/profile.h"
#include "strata/profile.h"

namespace strata {

struct Profile::Impl {
  profiler::Profile profile;
};

}  // namespace strata
