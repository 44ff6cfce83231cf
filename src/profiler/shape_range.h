// The types a node had over several calls, as one string per input or output: a range per dim
// where they differ ("float32[1..37,4]").
#pragma once

#include <string>
#include <vector>

namespace strata::profiler {

// `types` are one value's types over the calls ("float32[3,4]", as describe_step writes them).
// Same dtype and rank: one type with a range "LO..HI" at each dim that varied. Otherwise the
// distinct types in first-seen order, joined with " | ".
std::string shape_range(const std::vector<std::string>& types);

}  // namespace strata::profiler
