// The graph inputs' shapes as analysed: declared in the model or given by the user, with every
// symbolic dim numbered, and the sizes given for them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/shape.h"
#include "ir/graph.h"

namespace strata::analyzer {

struct InputPlan {
  std::vector<std::string> symbols;           // in order of first appearance
  std::vector<std::optional<int64_t>> sizes;  // per symbol: the size given, if any
  std::vector<std::vector<int64_t>> dims;     // per graph input: >= 0 a size, < 0 symbol -(i + 1)
  // Loops whose trip count is known only while running (graph node indices): each has a symbol
  // of its own, "NODE.trips", the last of `symbols` in this order.
  std::vector<size_t> trip_loops;
  // Each trip loop's count at `sizes` (one per symbol): node index and count.
  std::vector<std::pair<size_t, int64_t>> trips_at(const std::vector<int64_t>& sizes) const;

  bool all_sizes_known() const;
  // The inputs' shapes with symbols as Dim::symbol.
  std::vector<Shape> symbolic_shapes() const;
  // The inputs' shapes with symbol i set to sizes[i].
  std::vector<Shape> shapes_at(const std::vector<int64_t>& sizes) const;
  // "N=16, seq=24".
  std::string sizes_str(const std::vector<int64_t>& sizes) const;
};

// Fails (exit 2) naming the input or dim: an unknown input name, a shape that does not fit the
// declared one, an input without a shape, an unknown or negative dim, too many symbols.
// `trip_loops`: Loop nodes given a trip-count symbol each (trip_symbol).
InputPlan plan_inputs(const ir::Graph& graph, const std::map<std::string, Shape>& input_shapes,
                      const std::map<std::string, int64_t>& dims,
                      const std::vector<size_t>& trip_loops = {});

// The symbol of a Loop node's trip count: "NODE.trips" ("loop#N.trips" for an unnamed node).
std::string trip_symbol(const ir::Graph& graph, size_t node);

// "1x3xHxW" or "1,3,H,W": numbers are sizes, names are symbols. Fails naming `what`.
Shape parse_symbolic_shape(const std::string& text, const std::string& what);

}  // namespace strata::analyzer
