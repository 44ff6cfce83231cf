// Gather's attribute, parsed once by the op (src/ops/gather.cpp) and read by the fast kernel.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

// The `axis` attribute of a Gather op as written (may be negative), or nullopt for other ops.
std::optional<int64_t> gather_axis(const Op& op);

}  // namespace strata::ops
