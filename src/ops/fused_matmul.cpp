#include "ops/fused_matmul.h"

#include <array>

#include "ops/broadcast.h"

namespace strata::ops {

namespace {

// Checks that an addend broadcasts one way (without growing) to the output's shape.
void check_addend(const InferContext& ctx, size_t i, const Meta& out, const char* what) {
  if (!ctx.has_input(i)) return;
  const Meta& m = ctx.input(i);
  if (m.dtype != out.dtype)
    fail("{} has dtype {} but the product is {}", what, dtype_name(m.dtype), dtype_name(out.dtype));
  if (m.shape.rank() > out.shape.rank() || broadcast_shapes(m.shape, out.shape) != out.shape)
    fail("{} of shape {} does not broadcast to the product's shape {}", what, m.shape.str(),
         out.shape.str());
}

// y = y + z, z broadcast to y's shape.
void add_broadcast(Tensor& y, const Tensor& z) {
  const std::array<std::vector<int64_t>, 1> strides = {broadcast_strides(z.shape(), y.shape())};
  visit_float(y.dtype(), [&]<class T>(Type<T>) {
    T* dst = y.data<T>();
    const T* src = z.data<T>();
    for_each_broadcast(y.shape(), strides, [&](int64_t i, const std::array<int64_t, 1>& at) {
      dst[i] = T(double(dst[i]) + double(src[at[0]]));
    });
  });
}

class FusedMatMulOp final : public Op {
 public:
  explicit FusedMatMulOp(const NodeInfo& node)
      : matmul_(find_op("MatMul")(node)),
        attributes_{node.attr_float("alpha", 1), parse_activation(node)} {}

  const FusedMatMulAttributes& attributes() const { return attributes_; }

  void infer(InferContext& ctx) const override {
    const std::vector<const Meta*> inputs = {&ctx.input(0), &ctx.input(1)};
    std::vector<Meta> out(1);
    InferContext matmul_ctx(inputs, out);
    matmul_->infer(matmul_ctx);
    if (!is_float(out[0].dtype)) fail("does not support dtype {}", dtype_name(out[0].dtype));
    check_addend(ctx, kFusedMatMulBias, out[0], "addend C");
    check_addend(ctx, kFusedMatMulResidual, out[0], "addend Z");
    ctx.set_output(0, out[0].dtype, out[0].shape);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const std::vector<const Meta*> inputs = {&ctx.input(0), &ctx.input(1)};
    const std::vector<Meta> out = {ctx.output(0)};
    std::optional<Cost> c = matmul_->cost(CostContext(inputs, out));
    if (!c) return c;
    const double per_element = (attributes_.alpha != 1 ? 1 : 0) +
                               (ctx.has_input(kFusedMatMulBias) ? 1 : 0) +
                               (ctx.has_input(kFusedMatMulResidual) ? 1 : 0) +
                               activation_flops(attributes_.activation.kind);
    c->flops += ctx.numel_out(0) * per_element;
    c->bytes_read += ctx.bytes_in(kFusedMatMulBias) + ctx.bytes_in(kFusedMatMulResidual);
    return c;
  }

  void run(KernelContext& ctx) const override {
    const Tensor* inputs[] = {&ctx.input(0), &ctx.input(1)};
    Tensor* outputs[] = {&ctx.output(0)};
    KernelContext matmul_ctx(inputs, 2, outputs, 1);
    matmul_->run(matmul_ctx);
    Tensor& y = ctx.output(0);
    if (attributes_.alpha != 1) {
      visit_float(y.dtype(), [&]<class T>(Type<T>) {
        for (int64_t i = 0; i < y.numel(); ++i)
          y.data<T>()[i] = T(double(y.data<T>()[i]) * double(attributes_.alpha));
      });
    }
    if (ctx.has_input(kFusedMatMulBias)) add_broadcast(y, ctx.input(kFusedMatMulBias));
    if (ctx.has_input(kFusedMatMulResidual)) add_broadcast(y, ctx.input(kFusedMatMulResidual));
    apply_activation(attributes_.activation, y);
  }

 private:
  std::unique_ptr<Op> matmul_;
  FusedMatMulAttributes attributes_;
};

}  // namespace

std::optional<FusedMatMulAttributes> fused_matmul_attributes(const Op& op) {
  const auto* fused = dynamic_cast<const FusedMatMulOp*>(&op);
  if (!fused) return std::nullopt;
  return fused->attributes();
}

std::unique_ptr<Op> make_fused_matmul(const NodeInfo& node) {
  return std::make_unique<FusedMatMulOp>(node);
}

}  // namespace strata::ops
