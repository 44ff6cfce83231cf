// A zero Pad of the spatial axes before a convolution or an average pool becomes that op's own
// padding: Pad(x) → Conv is Conv with pads + the Pad's, and Pad(x) → AveragePool (no pads of its
// own, or counting them) is AveragePool with those pads and count_include_pad=1, since the padded
// zeros were part of every window. torchvision's Inception writes its 3×3 average pools this way;
// the Pad ran on the reference kernel in the plain layout, with conversions on both sides.
#pragma once

#include "ir/graph.h"

namespace strata::passes {

// Returns the number of Pad nodes folded.
size_t fold_pad(ir::Graph& graph);

}  // namespace strata::passes
