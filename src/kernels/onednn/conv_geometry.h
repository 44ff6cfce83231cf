// A convolution's window and weight shape as oneDNN's descriptors take them, shared by the f32
// (conv.cpp) and int8 (qlinear_conv.cpp) convolutions.
#pragma once

#include <dnnl.hpp>
#include <vector>

#include "core/shape.h"
#include "ops/conv.h"

namespace strata::kernels::onednn {

struct OnednnConvGeometry {
  dnnl::memory::dims strides, dilations, pads_begin, pads_end;
  // Grouped weights: [M, C/g, k...] is [g, M/g, C/g, k...] in the same memory order.
  std::vector<int64_t> w_dims;
};

inline OnednnConvGeometry onednn_conv_geometry(const ops::ConvAttributes& attrs, const Shape& x,
                                               const Shape& w) {
  const ops::Window window = ops::with_forward_pads(ops::resolve_conv_window(attrs.window, x, w),
                                                    ops::spatial_dims(x.values()));
  OnednnConvGeometry g;
  for (size_t d = 0; d < window.rank(); ++d) {
    g.strides.push_back(window.strides[d]);
    g.dilations.push_back(window.dilations[d] - 1);  // oneDNN counts the gaps
    g.pads_begin.push_back(window.pads_begin[d]);
    g.pads_end.push_back(window.pads_end[d]);
  }
  g.w_dims = w.values();
  if (attrs.group > 1) {
    g.w_dims[0] /= attrs.group;
    g.w_dims.insert(g.w_dims.begin(), attrs.group);
  }
  return g;
}

}  // namespace strata::kernels::onednn
