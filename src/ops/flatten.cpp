// Flatten: a 2-D view [prod(dims before axis), prod(dims from axis)]; axis may be negative from
// opset 11 and may equal the rank (then the second dim is 1).
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class FlattenOp final : public Op {
 public:
  explicit FlattenOp(const NodeInfo& node) : axis_(node.attr_int("axis", 1)) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const int64_t rank = in.rank();
    if (axis_ < -rank || axis_ > rank)
      fail("attribute 'axis' {} is out of range for rank {}", axis_, rank);
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    Dim outer = 1;
    Dim inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      Dim& part = d < axis ? outer : inner;
      part = part * in[d];
    }
    ctx.set_output(0, ctx.dtype(0), Shape{outer, inner});
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override { copy_all_bytes(ctx.input(0), ctx.output(0)); }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> make_flatten(const NodeInfo& node) {
  return std::make_unique<FlattenOp>(node);
}

}  // namespace strata::ops
