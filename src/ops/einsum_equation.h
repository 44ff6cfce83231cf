// Einsum's equation, parsed: each operand's labels and where its ellipsis stands (shared by the
// op and the pass that turns batched matrix products written as Einsum into MatMul).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::ops {

// One operand's subscripts: its letters in order, with "..." standing before
// labels[ellipsis_at] when ellipsis_at >= 0.
struct EinsumTerm {
  std::string labels;
  int64_t ellipsis_at = -1;
  bool has_ellipsis() const { return ellipsis_at >= 0; }
};

struct EinsumEquation {
  std::vector<EinsumTerm> inputs;
  EinsumTerm output;
};

// Spaces ignored; an implicit output ("ij,jk") is the labels used once, sorted, after the
// ellipsis. Fails (strata::Error) on a malformed equation.
EinsumEquation parse_einsum_equation(const std::string& text);

}  // namespace strata::ops
