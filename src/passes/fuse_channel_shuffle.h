// ShuffleNet's channel shuffle as exporters write it (torch's view → transpose → view, Caffe2's
// Reshape → Transpose → Reshape): Reshape [N, C, ...] → [N, g, C/g, ...], Transpose swapping axes
// 1 and 2, Reshape back to [N, C, ...] becomes one strata::ChannelShuffle (src/ops/
// channel_shuffle.h). Its fast kernel permutes the channels in the layout the convolutions
// around it use; the three ops needed nchw (a Reshape splitting the channels is no view of
// nhwc or blocked data), so each shuffle cost two layout conversions and a transpose.
#pragma once

#include <cstddef>

#include "ir/graph.h"

namespace strata::passes {

// Returns how many shuffles it replaced. Needs inferred shapes.
size_t fuse_channel_shuffle(ir::Graph& graph);

}  // namespace strata::passes
