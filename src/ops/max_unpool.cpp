// MaxUnpool: the partial inverse of MaxPool. Output zeros, with X[i] written at the position that
// index I[i] names. Indices are flat over the default output [N, C, (in - 1)·stride + kernel -
// pads...] (as MaxPool's Indices output numbers them); with the output_shape input, each lands on
// the same coordinates of that larger shape. Data movement: 0 FLOPs.
#include <cstring>

#include "ops/conv_geometry.h"
#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class MaxUnpoolOp final : public Op {
 public:
  explicit MaxUnpoolOp(const NodeInfo& node) : attrs_(node) {
    if (!attrs_.has_kernel_shape()) fail("required attribute 'kernel_shape' is missing");
  }

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    const Shape& x = ctx.shape(0);
    require_rank(x, 1, "X");
    if (ctx.dtype(1) != DType::kI64)
      fail("input 'I' must be int64, not {}", dtype_name(ctx.dtype(1)));
    const Shape& indices = ctx.shape(1);
    bool same = indices.rank() == x.rank();
    for (int64_t d = 0; same && d < x.rank(); ++d) same = x[d] == indices[d] || !x[d].is_static();
    if (!same) fail("input 'I' of shape {} must have the shape of X {}", indices.str(), x.str());
    if (ctx.has_input(2)) {
      const std::vector<int64_t> out = ctx.ints(2);
      if (int64_t(out.size()) != x.rank())
        fail("input 'output_shape' has {} values for an input of rank {}", out.size(), x.rank());
      ctx.set_output(0, ctx.dtype(0), Shape::of(out));
      return;
    }
    ctx.set_output(0, ctx.dtype(0), default_shape(x));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0);
    const std::vector<int64_t> plain = default_shape(Shape::of(x.shape())).values();
    for (int64_t d = 0; d < y.rank(); ++d)
      if (y.dim(d) < plain[size_t(d)])
        fail("output_shape {} is smaller than the unpooled shape on axis {}", y.shape_str(), d);
    const int64_t plain_size = product(plain);
    const std::vector<int64_t> out_strides = row_major_strides(y.shape());
    const std::vector<int64_t> indices = ctx.input(1).to_int64();
    const size_t elem = dtype_size(x.dtype());
    const auto* src = static_cast<const std::byte*>(x.raw());
    auto* dst = static_cast<std::byte*>(y.raw());
    std::memset(dst, 0, y.nbytes());
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= plain_size)
        fail("index {} in 'I' is outside the unpooled tensor of {} elements", indices[i],
             plain_size);
      const std::vector<int64_t> at = unravel(indices[i], plain);
      int64_t offset = 0;
      for (size_t d = 0; d < at.size(); ++d) offset += at[d] * out_strides[d];
      std::memcpy(dst + size_t(offset) * elem, src + i * elem, elem);
    }
  }

 private:
  Shape default_shape(const Shape& x) const {
    const Window w = attrs_.resolve(size_t(x.rank() - 2));
    Shape out{x[0], x[1]};
    for (size_t d = 0; d < w.rank(); ++d) {
      const Dim& in = x[int64_t(d) + 2];
      out.push_back(add_const((in - Dim(1)) * Dim(w.strides[d]),
                              w.kernel[d] - w.pads_begin[d] - w.pads_end[d]));
    }
    return out;
  }

  WindowAttrs attrs_;
};

}  // namespace

std::unique_ptr<Op> make_max_unpool(const NodeInfo& node) {
  return std::make_unique<MaxUnpoolOp>(node);
}

}  // namespace strata::ops
