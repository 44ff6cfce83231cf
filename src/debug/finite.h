// `--check-finite`: run once and stop at the first node whose output holds NaN or Inf.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/session.h"

namespace strata::debug {

struct NonFinite {
  std::string node, op_type;
  std::vector<std::string> fused_from;
  std::string value;  // its first output holding NaN or Inf
  int64_t nans = 0, infs = 0, count = 0;
  // Inputs holding NaN or Inf themselves (graph inputs or constants: "'w' (2 NaN, 0 Inf)"); empty
  // when every input was finite, so the node made them.
  std::vector<std::string> non_finite_inputs;
};

// Runs `session` once on `inputs`, checking each node's outputs as it finishes; stops at the
// first holding NaN or Inf. nullopt when every value is finite.
std::optional<NonFinite> find_non_finite(runtime::Session& session,
                                         const std::vector<const Tensor*>& inputs);

// "node 'div' (Div) wrote 3 NaN and 0 Inf of 6 values to 'y'; its inputs were finite".
std::string describe(const NonFinite& f);

}  // namespace strata::debug
