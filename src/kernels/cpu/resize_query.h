// Asking the Resize op (ops/resize.h) how a node resizes, from a fast kernel's request.
#pragma once

#include <utility>
#include <vector>

#include "kernels/kernel.h"
#include "ops/resize.h"

namespace strata::kernels::cpu {

// `query` (ops::resize_copy_sources, ops::resize_taps) on the node's inputs as the op sees them:
// input 0 for its shape only, the others (scales, sizes, roi) when they are constants; nullopt
// when one is known only while running.
template <class Query>
auto query_resize(const NodeRequest& r, Query&& query)
    -> decltype(query(r.op, std::declval<const ops::KernelContext&>())) {
  std::vector<Tensor> values(r.inputs.size());
  std::vector<const Tensor*> inputs(r.inputs.size(), nullptr);
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    if (!r.has_input(i)) continue;
    if (i == 0) {  // read for its shape only
      values[i] = Tensor::view(r.input(i).dtype, r.input(i).shape.values(), nullptr);
    } else if (r.input(i).value) {
      values[i] = *r.input(i).value;
    } else {
      return std::nullopt;
    }
    inputs[i] = &values[i];
  }
  Tensor out = Tensor::view(r.output(0).dtype, r.output(0).shape.values(), nullptr);
  Tensor* outputs[] = {&out};
  const ops::KernelContext ctx(inputs.data(), inputs.size(), outputs, 1);
  return query(r.op, ctx);
}

}  // namespace strata::kernels::cpu
