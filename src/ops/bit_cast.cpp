// BitCast (opset 26): reinterprets each element's bytes as type `to`, without conversion. strata
// supports types of equal size, where the shape is kept. Data movement: 0 FLOPs.
#include <cstring>

#include "ops/layout_util.h"

namespace strata::ops {

namespace {

class BitCastOp final : public Op {
 public:
  explicit BitCastOp(const NodeInfo& node) {
    const int64_t to = node.required_int("to");
    if (!dtype_from_onnx(int(to), &to_) || dtype_size(to_) == 0)
      fail("attribute 'to' {} is not a fixed-size type strata supports", to);
  }

  void infer(InferContext& ctx) const override {
    const DType from = ctx.dtype(0);
    require_fixed_size(from);
    if (dtype_size(from) != dtype_size(to_))
      fail("cannot bit-cast {} to {}: strata bit-casts only between types of the same size",
           dtype_name(from), dtype_name(to_));
    ctx.set_output(0, to_, ctx.shape(0));
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.nbytes()) std::memcpy(ctx.output(0).raw(), x.raw(), x.nbytes());
  }

 private:
  DType to_ = DType::kUndefined;
};

}  // namespace

std::unique_ptr<Op> make_bit_cast(const NodeInfo& node) {
  return std::make_unique<BitCastOp>(node);
}

}  // namespace strata::ops
