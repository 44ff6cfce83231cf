// Identity, and Dropout: the identity at inference; in training mode (an input from opset 12,
// possibly known only at run time) each element is kept with probability 1 - ratio and scaled
// by 1 / (1 - ratio), as the spec says.
#include <algorithm>
#include <cstring>
#include <random>

#include "ops/op.h"

namespace strata::ops {

namespace {

class IdentityOp final : public Op {
 public:
  explicit IdentityOp(const NodeInfo& node)
      : is_dropout_(node.op_type() == "Dropout"),
        default_ratio_(node.attr_float("ratio", 0.5f)),
        seed_(node.attr_int("seed", 0)),
        has_seed_(node.has_attr("seed")) {
    if (is_dropout_ && node.opset() < 7 && node.attr_int("is_test", 0) == 0)
      fail("Dropout with is_test=0 (training, before opset 7) is not supported");
    // Training mode makes the output random, so it must never be folded ahead of time.
    const Tensor* training = node.has_input(2) ? node.constant_input(2) : nullptr;
    if (training && training->numel() != 1) fail("input 'training_mode' must be a scalar");
    may_train_ = is_dropout_ && node.has_input(2) && (!training || training->to_int64().at(0) != 0);
  }

  // Identity passes sequences and optionals through too.
  bool takes_lists() const override { return !is_dropout_; }

  void infer(InferContext& ctx) const override {
    const Meta& src = ctx.input(0);
    if (src.kind != ValueKind::kTensor) return ctx.set_list_output(0, src.kind, src.dtype);
    ctx.set_output(0, src.dtype, src.shape);
    if (ctx.num_outputs() > 1) ctx.set_output(1, DType::kBool, src.shape);  // Dropout mask
    if (ctx.has_input(1) && ctx.input(1).value && ctx.input(1).value->numel() != 1)
      fail("input 'ratio' must be a scalar");
    if (ctx.has_input(2) && ctx.input(2).value && ctx.input(2).value->numel() != 1)
      fail("input 'training_mode' must be a scalar");
    if (src.value && !may_train_) ctx.set_output_value(0, *src.value);
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    return data_movement_cost(ctx);
  }

  bool is_deterministic() const override { return !may_train_; }

  void run(KernelContext& ctx) const override {
    const Tensor& src = ctx.input(0);
    Tensor& dst = ctx.output(0);
    if (!src.is_tensor()) {  // a list: its items are shared, never modified
      dst = src;
      return;
    }
    for (size_t i : {1, 2})  // values known only now: infer could not check them
      if (ctx.has_input(i) && ctx.input(i).numel() != 1)
        fail("input '{}' must be a scalar", i == 1 ? "ratio" : "training_mode");
    const double ratio = ctx.has_input(1) ? ctx.input(1).to_double().at(0) : default_ratio_;
    const bool training = ctx.has_input(2) && ctx.input(2).to_int64().at(0) != 0;
    if (training && ratio != 0) {
      dropout(src, dst, ratio, ctx.num_outputs() > 1 ? &ctx.output(1) : nullptr);
      return;
    }
    if (src.dtype() == DType::kString && dst.raw() != src.raw())
      std::copy(src.data<std::string>(), src.data<std::string>() + src.numel(),
                dst.data<std::string>());
    else if (dst.raw() != src.raw() && src.nbytes())
      std::memcpy(dst.raw(), src.raw(), src.nbytes());
    if (ctx.num_outputs() > 1) {  // mask: every element kept
      Tensor& mask = ctx.output(1);
      std::memset(mask.raw(), 1, mask.nbytes());
    }
  }

 private:
  void dropout(const Tensor& src, Tensor& dst, double ratio, Tensor* mask) const {
    if (ratio < 0 || ratio >= 1) fail("ratio {} is outside [0, 1)", ratio);
    std::mt19937_64 rng(has_seed_ ? uint64_t(seed_) : std::random_device{}());
    std::bernoulli_distribution keep(1.0 - ratio);
    const double scale = 1.0 / (1.0 - ratio);
    const bool ok = visit_float(src.dtype(), [&]<class T>(Type<T>) {
      for (int64_t i = 0; i < src.numel(); ++i) {
        const bool k = keep(rng);
        dst.data<T>()[i] = T(k ? float(double(src.data<T>()[i]) * scale) : 0.0f);
        if (mask) mask->data<bool>()[i] = k;
      }
    });
    if (!ok) fail("training-mode Dropout does not support dtype {}", dtype_name(src.dtype()));
  }

  bool is_dropout_;
  float default_ratio_;
  int64_t seed_;
  bool has_seed_;
  bool may_train_ = false;
};

}  // namespace

std::unique_ptr<Op> make_identity(const NodeInfo& node) {
  return std::make_unique<IdentityOp>(node);
}

}  // namespace strata::ops
