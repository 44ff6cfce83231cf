// Concat: joins inputs of the same rank along `axis`; the other dims must agree.
#include <algorithm>
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class ConcatOp final : public Op {
 public:
  explicit ConcatOp(const NodeInfo& node) : axis_(node.required_int("axis")) {
    if (node.num_inputs() == 0) fail("needs at least one input");
  }

  void infer(InferContext& ctx) const override {
    const DType dtype = ctx.dtype(0);
    require_fixed_size(dtype);
    Shape out = ctx.shape(0);
    const int64_t rank = out.rank();
    if (rank == 0) fail("cannot concatenate scalars");
    const int64_t axis = normalize_axis(axis_, rank);
    for (size_t i = 1; i < ctx.num_inputs(); ++i) {
      const Shape& in = ctx.shape(i);
      if (ctx.dtype(i) != dtype)
        fail("input {} is {}, input 0 is {}", i, dtype_name(ctx.dtype(i)), dtype_name(dtype));
      if (in.rank() != rank) fail("input {} has rank {}, input 0 has rank {}", i, in.rank(), rank);
      for (int64_t d = 0; d < rank; ++d) {
        if (d == axis) {
          out[d] = out[d] + in[d];
        } else if (in[d].is_static() && out[d].is_static() && !(in[d] == out[d])) {
          fail("input {} has shape {}, incompatible with {} outside axis {}", i, in.str(),
               ctx.shape(0).str(), axis);
        } else if (in[d].is_static()) {
          out[d] = in[d];  // a known size is more useful than a symbol
        }
      }
    }
    ctx.set_output(0, dtype, std::move(out));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    Tensor& dst = ctx.output(0);
    const int64_t axis = normalize_axis(axis_, dst.rank());
    const size_t elem = dtype_size(dst.dtype());
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= dst.dim(d);
    const size_t dst_row = size_t(dst.numel() / std::max<int64_t>(outer, 1)) * elem;
    // Each input contributes one contiguous block per outer index.
    size_t column = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& src = ctx.input(i);
      const size_t src_row = size_t(src.numel() / std::max<int64_t>(outer, 1)) * elem;
      if (src_row == 0) continue;
      const auto* from = static_cast<const std::byte*>(src.raw());
      auto* to = static_cast<std::byte*>(dst.raw());
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(to + size_t(o) * dst_row + column, from + size_t(o) * src_row, src_row);
      column += src_row;
    }
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Op> make_concat(const NodeInfo& node) {
  return std::make_unique<ConcatOp>(node);
}

}  // namespace strata::ops
