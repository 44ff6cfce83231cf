#include "kernels/pool_window.h"

#include <algorithm>

#include "ops/pool.h"

namespace strata::kernels {

bool is_global_pool(const ir::Node& node) {
  return node.op_type == "GlobalAveragePool" || node.op_type == "GlobalMaxPool";
}

PoolWindow pool_window_of(const NodeRequest& r) {
  const std::vector<int64_t> x = r.input(0).shape.values(), y = r.output(0).shape.values();
  PoolWindow w;
  if (is_global_pool(r.node)) {
    for (size_t d = 2; d < x.size(); ++d) {
      w.kernel.push_back(x[d]);
      w.strides.push_back(1);
      w.dilations.push_back(0);
      w.pads_begin.push_back(0);
      w.pads_end.push_back(0);
    }
    return w;
  }
  const ops::PoolAttributes attrs = *ops::pool_attributes(r.op);
  const std::vector<int64_t> in = ops::spatial_dims(x);
  const ops::Window window = ops::with_forward_pads(attrs.window->resolve(in.size()), in);
  for (size_t d = 0; d < window.rank(); ++d) {
    const int64_t out = y[d + 2];
    const int64_t needed =
        (out - 1) * window.strides[d] + window.extent(d) - in[d] - window.pads_begin[d];
    w.kernel.push_back(window.kernel[d]);
    w.strides.push_back(window.strides[d]);
    w.dilations.push_back(window.dilations[d] - 1);
    w.pads_begin.push_back(window.pads_begin[d]);
    w.pads_end.push_back(std::max(needed, window.pads_end[d]));
    w.grown |= needed > window.pads_end[d];
  }
  return w;
}

std::string pool_window_problem(const NodeRequest& r) {
  if (is_global_pool(r.node)) return "";
  const std::optional<ops::PoolAttributes> attrs = ops::pool_attributes(r.op);
  if (!attrs) return "the op is not a pooling";
  if (attrs->wants_indices) return "MaxPool's Indices output is read";
  const PoolWindow w = pool_window_of(r);
  if (!attrs->is_max && w.grown)
    return "ceil_mode average pooling counts the grown window differently";
  for (size_t d = 0; d < w.kernel.size(); ++d) {
    const int64_t extent = (w.kernel[d] - 1) * (w.dilations[d] + 1) + 1;
    if (w.pads_begin[d] >= extent || w.pads_end[d] >= extent)
      return "a pad as large as the window leaves windows without input";
  }
  return "";
}

}  // namespace strata::kernels
