#include "ops/fused_batch_norm.h"

namespace strata::ops {

namespace {

class FusedBatchNormOp final : public Op {
 public:
  explicit FusedBatchNormOp(const NodeInfo& node)
      : norm_(make_batch_norm(node)), activation_(parse_activation(node)) {}

  const Op& norm() const { return *norm_; }
  const Activation& activation() const { return activation_; }

  void infer(InferContext& ctx) const override { norm_->infer(ctx); }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    std::optional<Cost> c = norm_->cost(ctx);
    if (c) c->flops += ctx.numel_out(0) * activation_flops(activation_.kind);
    return c;
  }

  void run(KernelContext& ctx) const override {
    norm_->run(ctx);
    apply_activation(activation_, ctx.output(0));
  }

 private:
  std::unique_ptr<Op> norm_;
  Activation activation_;
};

}  // namespace

std::optional<FusedBatchNormAttributes> fused_batch_norm_attributes(const Op& op) {
  const auto* fused = dynamic_cast<const FusedBatchNormOp*>(&op);
  if (!fused) return std::nullopt;
  return FusedBatchNormAttributes{*batch_norm_attributes(fused->norm()), fused->activation()};
}

std::unique_ptr<Op> make_fused_batch_norm(const NodeInfo& node) {
  return std::make_unique<FusedBatchNormOp>(node);
}

}  // namespace strata::ops
