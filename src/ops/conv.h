// Conv's attributes, parsed once by the op (src/ops/conv.cpp) and read by the fused op and the
// fast kernels, so no one parses them twice.
#pragma once

#include <memory>

#include "ops/conv_geometry.h"
#include "ops/op.h"

namespace strata::ops {

struct ConvAttributes {
  explicit ConvAttributes(const NodeInfo& node);  // fails naming a bad attribute
  WindowAttrs window;
  int64_t group = 1;
};

// Everything the direct loop needs for one set of shapes. Built on the first run with those
// shapes (the warm-up), so that later runs allocate nothing.
struct ConvPlan {
  std::vector<int64_t> x_shape, w_shape;
  int threads = 0;
  Window window;
  std::vector<int64_t> in_dims, out_dims;
  std::vector<std::vector<MappedRow>> tap_rows;
  std::vector<double> acc;  // one accumulator plane per thread
};

// Conv's reference computation for float tensors (sums in double), shared with the quantized
// convolutions: for each output channel, every (input channel, kernel tap) pair adds a shifted
// input plane times one weight; output planes shared among the threads.
class DirectConv {
 public:
  explicit DirectConv(const ConvAttributes& attrs);  // attrs must outlive this
  // [N, M, output spatial...] for X and W, after checking X's channels against W and the groups.
  Shape output_shape(const Shape& x, const Shape& w) const;
  // y = conv(x, w) + b; x, w, b and y of one float type.
  void run(const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y);

 private:
  ConvPlan& plan_for(const Tensor& x, const Tensor& w, const Tensor& y);
  Shape shape_of_output(const Window& window, const Shape& x, const Shape& w) const;
  const ConvAttributes* attrs_;
  ConvPlan plan_;
};

// The attributes of a Conv op, or nullptr when `op` is not one.
const ConvAttributes* conv_attributes(const Op& op);
// The attributes of a QLinearConv op (src/ops/quantized_conv.cpp), or nullptr when `op` is not one.
const ConvAttributes* qlinear_conv_attributes(const Op& op);

std::unique_ptr<Op> make_conv(const NodeInfo& node);

}  // namespace strata::ops
