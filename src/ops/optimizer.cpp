// One step of the optimizers of the ai.onnx.preview.training domain. Inputs: R (learning rate,
// float scalar), T (step count, int64 scalar), then n tensors of each kind in order; outputs the
// updated tensors grouped by kind likewise. With G_r = norm_coefficient · X + G:
// Adagrad   (X, G, H → X', H'):  r = R / (1 + T · decay_factor); H' = H + G_r²;
//                                X' = X - r · G_r / (sqrt(H') + epsilon)
// Momentum  (X, G, V → X', V'):  V' = alpha · V + (T > 0 ? beta : 1) · G_r;
//                                X' = X - R · V' (standard) or X - R · (G_r + alpha · V')
//                                (nesterov)
// Adam      (X, G, V, H → X', V', H'):  V' = alpha · V + (1 - alpha) · G_r;
//           H' = beta · H + (1 - beta) · G_r²; R_t = T > 0 ? R · sqrt(1 - beta^T) / (1 - alpha^T)
//           : R; X' = (1 - norm_coefficient_post) · (X - R_t · V' / (sqrt(H') + epsilon))
// Cost per element of X: Adagrad 8, Momentum 6 (nesterov 8), Adam 14.
#include <cmath>
#include <string>

#include "ops/op.h"
#include "ops/reduce_util.h"

namespace strata::ops {

namespace {

enum class Optimizer { kAdagrad, kMomentum, kAdam };

class OptimizerOp final : public Op {
 public:
  explicit OptimizerOp(const NodeInfo& node)
      : kind_(node.op_type() == "Adagrad"    ? Optimizer::kAdagrad
              : node.op_type() == "Momentum" ? Optimizer::kMomentum
                                             : Optimizer::kAdam),
        states_(kind_ == Optimizer::kAdam ? 3 : 2) {
    norm_ = node.attr_float("norm_coefficient", 0.0f);
    switch (kind_) {
      case Optimizer::kAdagrad:
        decay_ = node.attr_float("decay_factor", 0.0f);
        epsilon_ = node.attr_float("epsilon", 1e-6f);
        break;
      case Optimizer::kMomentum: {
        for (const char* name : {"alpha", "beta", "mode", "norm_coefficient"})
          if (!node.has_attr(name)) fail("required attribute '{}' is missing", name);
        alpha_ = node.attr_float("alpha", 0.0f);
        beta_ = node.attr_float("beta", 0.0f);
        const std::string mode = node.attr_string("mode");
        if (mode != "standard" && mode != "nesterov")
          fail("attribute 'mode' must be 'standard' or 'nesterov', not '{}'", mode);
        nesterov_ = mode == "nesterov";
        break;
      }
      case Optimizer::kAdam:
        alpha_ = node.attr_float("alpha", 0.9f);
        beta_ = node.attr_float("beta", 0.999f);
        epsilon_ = node.attr_float("epsilon", 1e-6f);
        norm_post_ = node.attr_float("norm_coefficient_post", 0.0f);
        break;
    }
    // Inputs: R, T and (1 + states) groups of n; outputs: `states` groups of n.
    const size_t groups = size_t(states_) + 1;
    if (node.num_inputs() < 2 + groups || (node.num_inputs() - 2) % groups != 0)
      fail("needs R, T and {} groups of tensors of equal count, got {} inputs", groups,
           node.num_inputs());
    count_ = (node.num_inputs() - 2) / groups;
    if (node.num_outputs() != size_t(states_) * count_)
      fail("needs {} outputs for {} tensors, got {}", size_t(states_) * count_, count_,
           node.num_outputs());
  }

  void infer(InferContext& ctx) const override {
    if (!is_float(ctx.dtype(0))) fail("input 'R' must be float, not {}", dtype_name(ctx.dtype(0)));
    if (ctx.dtype(1) != DType::kI64)
      fail("input 'T' must be int64, not {}", dtype_name(ctx.dtype(1)));
    for (size_t i = 0; i < count_; ++i) {
      const Meta& x = ctx.input(2 + i);
      if (!is_float(x.dtype)) fail("input {} must be float, not {}", 2 + i, dtype_name(x.dtype));
      for (size_t g = 1; g <= size_t(states_); ++g) {
        const Meta& other = ctx.input(2 + g * count_ + i);
        if (other.dtype != x.dtype || !(other.shape == x.shape))
          fail("input {} ({} {}) must match the tensor it updates ({} {})", 2 + g * count_ + i,
               dtype_name(other.dtype), other.shape.str(), dtype_name(x.dtype), x.shape.str());
      }
      for (size_t g = 0; g < size_t(states_); ++g) ctx.set_output(g * count_ + i, x.dtype, x.shape);
    }
  }

  std::optional<Cost> cost(const CostContext& ctx) const override {
    const double per_element = kind_ == Optimizer::kAdagrad ? 8
                               : kind_ == Optimizer::kAdam  ? 14
                                                            : (nesterov_ ? 8 : 6);
    Cost c = data_movement_cost(ctx);
    double elements = 0;
    for (size_t i = 0; i < count_; ++i) elements += ctx.numel_in(2 + i);
    c.flops = per_element * elements;
    return c;
  }

  void run(KernelContext& ctx) const override {
    const double r = ctx.input(0).to_double().at(0);
    const int64_t t = ctx.input(1).to_int64().at(0);
    for (size_t i = 0; i < count_; ++i) {
      const Tensor& x = ctx.input(2 + i);
      visit_float(x.dtype(), [&]<class T>(Type<T>) {
        auto in = [&](size_t group) { return ctx.input(2 + group * count_ + i).data<T>(); };
        auto out = [&](size_t group) { return ctx.output(group * count_ + i).data<T>(); };
        for (int64_t e = 0; e < x.numel(); ++e) {
          const double xv = double(in(0)[e]);
          const double g = double(norm_) * xv + double(in(1)[e]);
          switch (kind_) {
            case Optimizer::kAdagrad: {
              const double rate = r / (1 + double(t) * double(decay_));
              const double h = double(in(2)[e]) + g * g;
              out(0)[e] = from_acc<T>(xv - rate * g / (std::sqrt(h) + double(epsilon_)));
              out(1)[e] = from_acc<T>(h);
              break;
            }
            case Optimizer::kMomentum: {
              const double v =
                  double(alpha_) * double(in(2)[e]) + (t > 0 ? double(beta_) : 1.0) * g;
              out(0)[e] = from_acc<T>(nesterov_ ? xv - r * (g + double(alpha_) * v) : xv - r * v);
              out(1)[e] = from_acc<T>(v);
              break;
            }
            case Optimizer::kAdam: {
              const double a = alpha_, b = beta_;
              const double v = a * double(in(2)[e]) + (1 - a) * g;
              const double h = b * double(in(3)[e]) + (1 - b) * g * g;
              const double rate =
                  t > 0 ? r * std::sqrt(1 - std::pow(b, double(t))) / (1 - std::pow(a, double(t)))
                        : r;
              const double moved = xv - rate * v / (std::sqrt(h) + double(epsilon_));
              out(0)[e] = from_acc<T>((1 - double(norm_post_)) * moved);
              out(1)[e] = from_acc<T>(v);
              out(2)[e] = from_acc<T>(h);
              break;
            }
          }
        }
      });
    }
  }

 private:
  Optimizer kind_;
  int states_;  // state tensors updated besides X: Adagrad H; Momentum V; Adam V and H
  size_t count_ = 0;
  float norm_ = 0, decay_ = 0, epsilon_ = 0, alpha_ = 0, beta_ = 0, norm_post_ = 0;
  bool nesterov_ = false;
};

}  // namespace

std::unique_ptr<Op> make_optimizer(const NodeInfo& node) {
  return std::make_unique<OptimizerOp>(node);
}

}  // namespace strata::ops
