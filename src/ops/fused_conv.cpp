#include "ops/fused_conv.h"

namespace strata::ops {

namespace {

// Adds `z` (same shape and dtype) into `y`, element by element.
void add_in_place(Tensor& y, const Tensor& z) {
  visit_float(y.dtype(), [&]<class T>(Type<T>) {
    T* dst = y.data<T>();
    const T* src = z.data<T>();
    for (int64_t i = 0; i < y.numel(); ++i) dst[i] = T(double(dst[i]) + double(src[i]));
  });
}

class FusedConvOp final : public Op {
 public:
  explicit FusedConvOp(const NodeInfo& node)
      : conv_(make_conv(node)), activation_(parse_activation(node)) {}

  FusedConvAttributes attributes() const { return {conv_attributes(*conv_), activation_}; }

  void infer(InferContext& ctx) const override {
    const std::vector<const Meta*> conv_inputs = {&ctx.input(0), &ctx.input(1),
                                                  ctx.has_input(2) ? &ctx.input(2) : nullptr};
    std::vector<Meta> out(1);
    InferContext conv_ctx(conv_inputs, out);
    conv_->infer(conv_ctx);
    if (ctx.has_input(kFusedConvResidual)) {
      const Meta& z = ctx.input(kFusedConvResidual);
      if (z.dtype != out[0].dtype || z.shape != out[0].shape)
        fail("residual Z is {}{} but the convolution gives {}{}", dtype_name(z.dtype),
             z.shape.str(), dtype_name(out[0].dtype), out[0].shape.str());
    }
    ctx.set_output(0, out[0].dtype, out[0].shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const std::vector<const Meta*> conv_inputs = {&ctx.input(0), &ctx.input(1),
                                                  ctx.has_input(2) ? &ctx.input(2) : nullptr};
    const std::vector<Meta> out = {ctx.output(0)};
    std::optional<Cost> c = conv_->cost(CostContext(conv_inputs, out));
    if (!c) return c;
    const bool residual = ctx.has_input(kFusedConvResidual);
    c->flops += ctx.numel_out(0) * ((residual ? 1 : 0) + activation_flops(activation_.kind));
    c->bytes_read += ctx.bytes_in(kFusedConvResidual);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor* conv_inputs[] = {&ctx.input(0), &ctx.input(1),
                                   ctx.has_input(2) ? &ctx.input(2) : nullptr};
    Tensor* outputs[] = {&ctx.output(0)};
    KernelContext conv_ctx(conv_inputs, 3, outputs, 1);
    conv_->run(conv_ctx);
    if (ctx.has_input(kFusedConvResidual))
      add_in_place(ctx.output(0), ctx.input(kFusedConvResidual));
    apply_activation(activation_, ctx.output(0));
  }

 private:
  std::unique_ptr<Op> conv_;
  Activation activation_;
};

}  // namespace

std::optional<FusedConvAttributes> fused_conv_attributes(const Op& op) {
  const auto* fused = dynamic_cast<const FusedConvOp*>(&op);
  if (!fused) return std::nullopt;
  return fused->attributes();
}

std::unique_ptr<Op> make_fused_conv(const NodeInfo& node) {
  return std::make_unique<FusedConvOp>(node);
}

}  // namespace strata::ops
