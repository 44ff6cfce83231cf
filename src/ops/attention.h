// Attention's attributes, parsed once by the op (src/ops/attention.cpp) and read by the fast
// kernel.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct AttentionAttributes {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;  // for 3-D inputs
  int64_t qk_mode = 0;                // qk_matmul_output_mode
  bool has_scale = false;
  float scale = 1, softcap = 0;
};

// The attributes of an Attention op, or nullopt for other ops.
std::optional<AttentionAttributes> attention_attributes(const Op& op);

}  // namespace strata::ops
