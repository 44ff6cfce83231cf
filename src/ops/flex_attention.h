// FlexAttention's stages (src/ops/flex_attention.cpp), shared by its reference kernel and by the
// session's SubgraphRunner, which runs the score_mod and prob_mod subgraphs between them.
#pragma once

#include <optional>

#include "ops/op.h"

namespace strata::ops {

struct FlexAttentionAttributes {
  bool has_scale = false;
  float scale = 1;  // when has_scale; else 1/sqrt(head size)
};

// The attributes of a FlexAttention op, or nullopt for other ops.
std::optional<FlexAttentionAttributes> flex_attention_attributes(const Op& op);

// The dtype scores and probabilities are kept in: double for double inputs, else float.
DType flex_attention_compute_dtype(DType input);

// Q·Kᵀ·scale, [B, Hq, L, S], each K head shared by Hq/Hkv consecutive query heads.
Tensor flex_attention_scores(const Tensor& q, const Tensor& k, const FlexAttentionAttributes& a);
// Softmax over the last axis, in place; a row whose scores are all -inf gives zeros.
void flex_attention_softmax(Tensor& scores);
// probs·V into `y` ([B, Hq, L, Dv], allocated), rounded to y's dtype.
void flex_attention_weighted_values(const Tensor& probs, const Tensor& v, Tensor& y);

}  // namespace strata::ops
