// Identity and Dropout (inference mode): the output is the input.
#include <cstring>

#include "ops/op.h"

namespace strata::ops {

namespace {

class IdentityOp final : public Op {
 public:
  explicit IdentityOp(const NodeInfo& node) {
    // Dropout in training mode would be random; strata runs inference only.
    if (node.op_type() == "Dropout" && node.has_input(2)) {
      const Tensor* training = node.constant_input(2);
      if (!training) fail("Dropout input 'training_mode' must be a constant (inference only)");
      if (training->to_int64().at(0) != 0) fail("Dropout in training mode is not supported");
    }
    if (node.op_type() == "Dropout" && node.attr_int("is_test", 1) == 0 && node.opset() < 7)
      fail("Dropout with is_test=0 is not supported");
  }

  void infer(InferContext& ctx) const override {
    const Meta& src = ctx.input(0);
    ctx.set_output(0, src.dtype, src.shape);
    if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kBool, src.shape);  // Dropout mask
    if (src.value) ctx.set_output_value(0, *src.value);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    if (dst.raw() != src.raw() && src.nbytes()) std::memcpy(dst.raw(), src.raw(), src.nbytes());
    if (ctx.num_outputs() > 1) {  // mask: every element kept
      Tensor& mask = ctx.output(1);
      std::memset(mask.raw(), 1, mask.nbytes());
    }
  }
};

}  // namespace

std::unique_ptr<Op> make_identity(const NodeInfo& node) {
  return std::make_unique<IdentityOp>(node);
}

}  // namespace strata::ops
