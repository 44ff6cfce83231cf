// Input specialisation: gives the graph inputs the concrete shapes a session is prepared for and
// infers every shape again, so symbolic dims (a batch "N") become numbers and the folding and
// fusion passes see concrete shapes (and shape computations they can fold).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace strata::passes {

// `shapes` follow graph.inputs. Fails (exit 2) naming the input when a shape does not fit the
// model's declared rank or fixed dims.
void specialize_inputs(ir::Graph& graph, const std::vector<std::vector<int64_t>>& shapes);

}  // namespace strata::passes
