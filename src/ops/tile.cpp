// Tile: repeats the input repeats[i] times along each axis i.
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class TileOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& in = ctx.shape(0);
    const std::vector<int64_t> repeats = ctx.ints(1);
    if (int64_t(repeats.size()) != in.rank())
      fail("input 'repeats' has {} entries for an input of rank {}", repeats.size(), in.rank());
    Shape out;
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (repeats[size_t(d)] < 0)
        fail("input 'repeats' has a negative entry {}", repeats[size_t(d)]);
      out.push_back(in[d] * repeats[size_t(d)]);
    }
    ctx.set_output(0, ctx.dtype(0), std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  // Output index i*dim + j along an axis reads input index j, so the output is the input seen as
  // shape [r0, d0, r1, d1, ...] with stride 0 on every repeat axis.
  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    const std::vector<int64_t> src_strides = row_major_strides(src.shape());
    std::vector<int64_t> shape, strides;
    for (int64_t d = 0; d < src.rank(); ++d) {
      shape.push_back(dst.dim(d) / std::max<int64_t>(src.dim(d), 1));
      shape.push_back(src.dim(d));
      strides.push_back(0);
      strides.push_back(src_strides[size_t(d)]);
    }
    strided_copy(src.raw(), 0, strides, shape, dst.raw(), dtype_size(src.dtype()));
  }
};

}  // namespace

std::unique_ptr<Op> make_tile(const NodeInfo&) {
  return std::make_unique<TileOp>();
}

}  // namespace strata::ops
