// Two dumps of one model compared value by value in execution order, to name the first node
// whose output goes wrong while everything it read was still right (`strata compare`).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "debug/dump.h"
#include "report/table.h"
#include "runtime/verify.h"

namespace strata::debug {

// One value both dumps hold.
struct ValueDiff {
  std::string value;
  // The node that wrote it, into DumpComparison::nodes; nullopt for a graph input.
  std::optional<size_t> node;
  runtime::Comparison comparison;  // A against B as expected (runtime::compare)
};

struct DumpComparison {
  // The execution order used: of the dump with an index; of both, the one whose values the
  // other holds the larger share of (a fused run's, beside an unfused one); A's on a tie.
  std::vector<DumpNode> nodes;
  std::vector<ValueDiff> values;  // every shared value in that order, graph inputs first
  size_t only_a = 0, only_b = 0;  // values one dump holds and the other does not
  size_t out_of_tolerance = 0;
  // The first node with an output out of tolerance while every input both dumps hold is within
  // it; nullopt when all agree or when only graph inputs differ.
  std::optional<size_t> first_divergent;
  std::vector<std::string> divergent_inputs;  // graph inputs out of tolerance
  // Inputs of the first divergent node that only one dump holds, with the nodes (of `nodes`)
  // that wrote them: the divergence may start there too (a chain fused in one dump only).
  std::vector<size_t> unchecked_producers;
  bool agree() const { return out_of_tolerance == 0; }
};

// Compares a against b (b as the expected side of runtime::compare) under `tol`. Fails (exit 2)
// when neither dump has an execution order (index.json), when their models differ (model signatures
// in both indexes), when they share no value, or when a shared value's dtype or shape differs.
DumpComparison compare_dumps(const Dump& a, const Dump& b, const runtime::Tolerance& tol);

// The columns of render_comparison's table (for --columns).
std::vector<report::Column> comparison_columns();

// The table (node, op, value, max abs, max rel, cosine, ULP, mismatches per shared value), a
// summary line and "first divergent node: NAME (OP)". On a terminal (`fit`) the table fits its
// width: names shortened in the middle, the cosine and ULP columns left out first.
std::string render_comparison(const DumpComparison& c, const std::string& label_a,
                              const std::string& label_b, const runtime::Tolerance& tol,
                              const report::FitOptions& fit = {});

}  // namespace strata::debug
