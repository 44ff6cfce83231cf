// Where: y = condition ? x : y element-wise, the three inputs broadcast together (numpy rules).
//
// Cost: 0 FLOPs (a selection moves data and does no arithmetic); bytes as elementwise_cost.
#include "ops/elementwise_kernels.h"
#include "ops/op.h"

namespace strata::ops {

namespace {

class WhereOp final : public Op {
 public:
  void infer(InferContext& ctx) const override {
    if (ctx.dtype(0) != DType::kBool)
      fail("condition must be bool, not {}", dtype_name(ctx.dtype(0)));
    const DType dtype = ctx.dtype(1);
    if (ctx.dtype(2) != dtype)
      fail("inputs X and Y have different dtypes {} and {}", dtype_name(dtype),
           dtype_name(ctx.dtype(2)));
    if (dtype_size(dtype) == 0) fail("does not support dtype {}", dtype_name(dtype));
    ctx.set_output(0, dtype, broadcast_input_shapes(ctx));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return elementwise_cost(ctx, 0);
  }

  void run(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const bool visited = visit_all(out.dtype(), [&]<class T>(Type<T>) {
      broadcast_map(
          out.data<T>(), out.shape(),
          [](bool c, compute_t<T> x, compute_t<T> y) { return c ? x : y; },
          operand<bool>(ctx.input(0)), operand<T>(ctx.input(1)), operand<T>(ctx.input(2)));
    });
    if (!visited) fail_internal("Where kernel reached with dtype {}", dtype_name(out.dtype()));
  }
};

}  // namespace

std::unique_ptr<Op> make_where(const NodeInfo& node) {
  return std::make_unique<WhereOp>();
}

}  // namespace strata::ops
