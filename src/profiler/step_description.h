// What each executed step is, for the rows of a profile: node name and op type, the kernel that
// ran, input and output types, the op's static cost from its cost rule, and the arena bytes of
// its outputs. Read from a session after a run, so steps whose shapes are only known at run time
// are described with the shapes they actually had.
#pragma once

#include <vector>

#include "profiler/profile.h"
#include "runtime/session.h"

namespace strata::profiler {

// One row per step (Session::steps() order) with every descriptive field of NodeProfile filled
// and no measurement. The session must have run at least once.
std::vector<NodeProfile> describe_steps(const runtime::Session& session);
// The row of step s alone.
NodeProfile describe_step(const runtime::Session& session, size_t s);

}  // namespace strata::profiler
