// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of each matrix in the last
// two dims and zeroes the rest; k is the optional input 1.
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class TriluOp final : public Op {
 public:
  explicit TriluOp(const NodeInfo& node) : upper_(node.attr_int("upper", 1) != 0) {}

  void infer(InferContext& ctx) const override {
    require_fixed_size(ctx.dtype(0));
    if (ctx.shape(0).rank() < 2) fail("input must have rank >= 2, not {}", ctx.shape(0).rank());
    if (ctx.has_input(1)) {
      if (!is_integer(ctx.dtype(1)))
        fail("input 'k' must be int64, not {}", dtype_name(ctx.dtype(1)));
      if (ctx.shape(1).rank() != 0 && !(ctx.shape(1).numel() == Dim(1)))
        fail("input 'k' must be a scalar, not of shape {}", ctx.shape(1).str());
    }
    ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    Tensor& out = ctx.output(0);
    int64_t k = 0;
    if (ctx.has_input(1)) {
      const std::vector<int64_t> values = ctx.input(1).to_int64();
      if (values.size() != 1) fail("input 'k' must hold one value, not {}", values.size());
      k = values[0];
    }
    const int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
    const int64_t matrices = rows * cols == 0 ? 0 : in.numel() / (rows * cols);
    const size_t elem = dtype_size(in.dtype());
    const auto* from = static_cast<const std::byte*>(in.raw());
    auto* to = static_cast<std::byte*>(out.raw());
    for (int64_t m = 0; m < matrices; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const size_t at = size_t((m * rows + i) * cols + j) * elem;
          const bool keep = upper_ ? j - i >= k : j - i <= k;
          if (keep) {
            if (to != from) std::memcpy(to + at, from + at, elem);
          } else {
            std::memset(to + at, 0, elem);  // zero bits are 0 in every dtype
          }
        }
  }

 private:
  bool upper_;
};

}  // namespace

std::unique_ptr<Op> make_trilu(const NodeInfo& node) {
  return std::make_unique<TriluOp>(node);
}

}  // namespace strata::ops
