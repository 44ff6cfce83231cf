// Expand: broadcasts the input to the shape given by input 1, in both directions (numpy rules:
// a 1 in the requested shape keeps the input's dim).
#include "ops/broadcast.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ExpandOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    if (ctx.shape(1).rank() != 1) fail("input 'shape' must be one-dimensional");
    const std::vector<int64_t> requested = ctx.ints(1);
    for (int64_t d : requested)
      if (d < 0) fail("input 'shape' has a negative dim {}", d);
    ctx.set_output(0, ctx.dtype(0), broadcast_shapes(ctx.shape(0), Shape::of(requested)));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    strided_copy(src.raw(), 0, broadcast_strides(src.shape(), dst.shape()), dst.shape(), dst.raw(),
                 dtype_size(src.dtype()));
  }
};

}  // namespace

std::unique_ptr<Op> make_expand(const NodeInfo&) {
  return std::make_unique<ExpandOp>();
}

}  // namespace strata::ops
