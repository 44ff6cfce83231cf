// A batched matrix product written as Einsum (MaxViT's attention: "bghid,bghjd->bghij" and
// "bghij,bghjd->bghid"; "bhqd,bhkd->bhqk" and its kin in hand-written attention) becomes MatMul
// with Transposes where the labels are out of order: the fast kernels take MatMul, where Einsum
// had only its reference kernel (maxvit_t ran 5× slower than ONNX Runtime, 86% of it in Einsum).
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace strata::passes {

// Two operands whose labels are each one of: batch (in both operands and the output, the same
// size), one row label (first operand and output), one column label (second operand and output),
// one contracted label (both operands, not the output); no ellipsis, no label twice in a term,
// float operands of known shapes. Returns how many Einsum nodes it rewrote.
size_t einsum_as_matmul(ir::Graph& graph);

}  // namespace strata::passes
